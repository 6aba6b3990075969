-- aidev/by_agent: the AIDev dashboard's table of pull requests, one row per agent (snapshot window).
-- PR set: the agent's PRs as hindsight evaluates them (one safe output per distinct PR id of prs.csv).
--   prs                    the agent's PRs
--   evaluable_prs          PRs whose snapshot status is neither skipped nor unknown: the denominator of rejection_rate
--   merged                 PRs with merged_at in prs.csv, whoever merged them
--   merge_rate             merged / prs
--   rejected               hindsight's rejected at the snapshot: closed unmerged by someone other than the agent's
--                          identity, or merged and then reverted
--   rejection_rate         rejected / evaluable_prs
--   median_hours_to_merge  median hours from created_at to merged_at over the merged PRs (the mean of the two
--                          middle values for an even count)
-- Unrounded: the table, markdown and HTML reports round for reading, JSON and CSV do not.
WITH merges AS (
  SELECT
    'aidev:' || agent || ':' || CAST(id AS VARCHAR) AS safe_output_id,
    (EXTRACT(EPOCH FROM merged_at) - EXTRACT(EPOCH FROM created_at)) / 3600.0 AS hours
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL)
  WHERE nth = 1 AND merged_at IS NOT NULL
)
SELECT
  o.workflow_name AS agent,
  COUNT(*) AS prs,
  SUM(CASE WHEN o.outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_prs,
  COUNT(m.safe_output_id) AS merged,
  CAST(COUNT(m.safe_output_id) AS DOUBLE) / COUNT(*) AS merge_rate,
  SUM(CASE WHEN o.outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  CAST(SUM(CASE WHEN o.outcome_status = 'rejected' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN o.outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0) AS rejection_rate,
  MEDIAN(m.hours) AS median_hours_to_merge
FROM outcomes o
LEFT JOIN merges m ON m.safe_output_id = o.safe_output_id
WHERE o.run_id LIKE 'aidev:%' AND o.eval_window = 'snapshot'
GROUP BY o.workflow_name
ORDER BY agent
