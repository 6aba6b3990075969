-- aidev/by_agent: the AIDev dashboard's table of pull requests, one row per agent (snapshot window).
-- PR set: the agent's PRs as hindsight evaluates them (one safe output per distinct PR id of prs.csv).
--   prs                    the agent's PRs: the denominator of merge_rate
--   evaluable_prs          PRs whose snapshot status is neither skipped nor unknown: the denominator of rejection_rate
--   merged                 PRs with merged_at in prs.csv, whoever merged them: the n of median_hours_to_merge
--   merge_rate             merged / prs
--   merge_rate_ci_low, merge_rate_ci_high          its 95% Wilson score interval, as in acceptance_by_window
--   rejected               hindsight's rejected at the snapshot: closed unmerged by someone other than the agent's
--                          identity, or merged and then reverted
--   rejection_rate         rejected / evaluable_prs
--   rejection_rate_ci_low, rejection_rate_ci_high  its 95% Wilson score interval
--   median_hours_to_merge  median hours from created_at to merged_at over the merged PRs (the mean of the two
--                          middle values for an even count)
-- Unrounded: the table, markdown and HTML reports round for reading, JSON and CSV do not.
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH merges AS (
  SELECT
    'aidev:' || agent || ':' || CAST(id AS VARCHAR) AS safe_output_id,
    (EXTRACT(EPOCH FROM merged_at) - EXTRACT(EPOCH FROM created_at)) / 3600.0 AS hours
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL)
  WHERE nth = 1 AND merged_at IS NOT NULL
),
counts AS (
  SELECT
    o.workflow_name AS agent,
    COUNT(*) AS prs,
    SUM(o.evaluable) AS evaluable_prs,
    COUNT(m.safe_output_id) AS merged,
    SUM(CASE WHEN o.outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
    MEDIAN(m.hours) AS median_hours_to_merge
  FROM output_flags o
  LEFT JOIN merges m ON m.safe_output_id = o.safe_output_id
  WHERE o.run_id LIKE 'aidev:%' AND o.eval_window = 'snapshot'
  GROUP BY o.workflow_name
),
-- The rates' terms as DOUBLE, so every engine computes them alike: merged of prs, rejected of evaluable_prs.
w AS (
  SELECT
    *,
    CAST(prs AS DOUBLE) AS n1,
    CAST(merged AS DOUBLE) AS k1,
    CAST(evaluable_prs AS DOUBLE) AS n2,
    CAST(rejected AS DOUBLE) AS k2
  FROM counts
)
SELECT
  agent,
  prs,
  evaluable_prs,
  merged,
  k1 / n1 AS merge_rate,
  wilson_low(k1, n1) AS merge_rate_ci_low,
  wilson_high(k1, n1) AS merge_rate_ci_high,
  rejected,
  k2 / NULLIF(n2, 0) AS rejection_rate,
  wilson_low(k2, n2) AS rejection_rate_ci_low,
  wilson_high(k2, n2) AS rejection_rate_ci_high,
  median_hours_to_merge
FROM w
ORDER BY agent
