-- risk_over_time: the PR risk level distribution per repository and month the PR was opened
-- (UTC), over every agent PR with a risk row (an output's or a task's; a PR of both counted
-- once). A PR the snapshot does not have (no opening time) is left out.
--   repo, year, month   the PR's repository; when it was opened
--   prs                 PRs opened that month
--   low, medium, high, critical   PRs at each level
--   risk_unknown        PRs whose files were not captured (no level)
WITH prs AS (
  SELECT DISTINCT repo, pull_number, risk_level FROM pr_risk
)
SELECT
  r.repo,
  CAST(EXTRACT(YEAR FROM p.created_at) AS BIGINT) AS year,
  CAST(EXTRACT(MONTH FROM p.created_at) AS BIGINT) AS month,
  COUNT(*) AS prs,
  SUM(CASE WHEN r.risk_level = 'low' THEN 1 ELSE 0 END) AS low,
  SUM(CASE WHEN r.risk_level = 'medium' THEN 1 ELSE 0 END) AS medium,
  SUM(CASE WHEN r.risk_level = 'high' THEN 1 ELSE 0 END) AS high,
  SUM(CASE WHEN r.risk_level = 'critical' THEN 1 ELSE 0 END) AS critical,
  SUM(CASE WHEN r.risk_level IS NULL THEN 1 ELSE 0 END) AS risk_unknown
FROM prs r
JOIN pr_feedback p ON p.repo = r.repo AND p.number = r.pull_number
WHERE p.created_at IS NOT NULL
GROUP BY r.repo, CAST(EXTRACT(YEAR FROM p.created_at) AS BIGINT), CAST(EXTRACT(MONTH FROM p.created_at) AS BIGINT)
ORDER BY r.repo, year, month
