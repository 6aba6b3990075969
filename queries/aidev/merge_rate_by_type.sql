-- aidev/merge_rate_by_type: AIDev's merge rate by task type, one row per agent and type.
-- PR set: as aidev/turnaround (prs.csv joined 1:1 on PR id with gpt_conventional_commits.csv).
--   total       labelled PRs of the type
--   merged_pct  PRs with merged_at / total * 100
WITH prs AS (
  SELECT agent, id, merged_at
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL)
  WHERE nth = 1
),
types AS (
  SELECT agent, id, type
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_task_types WHERE id IS NOT NULL)
  WHERE nth = 1
)
SELECT
  p.agent,
  t.type,
  COUNT(*) AS total,
  100.0 * SUM(CASE WHEN p.merged_at IS NOT NULL THEN 1 ELSE 0 END) / COUNT(*) AS merged_pct
FROM prs p
JOIN types t ON t.agent = p.agent AND t.id = p.id
GROUP BY p.agent, t.type
ORDER BY p.agent, t.type
