-- task_risk_by_outcome: do high-risk task PRs get rejected more often? The PRs that tasks opened
-- (pr_risk rows with a task_id, each PR once), by their risk level, against what the repository
-- decided at capture (with --tasks). PRs still open are undecided: counted apart, out of both rates.
--   risk_level       low, medium, high, critical; (unknown) when the PR's files were not captured
--   prs              task PRs at that level
--   prs_decided      merged, or closed unmerged, at capture
--   prs_open         still open at capture
--   merge_rate       merged / prs_decided
--   rejection_rate   closed unmerged / prs_decided
WITH prs AS (
  SELECT DISTINCT r.repo, r.pull_number, COALESCE(r.risk_level, '(unknown)') AS risk_level
  FROM pr_risk r
  WHERE r.task_id IS NOT NULL
)
SELECT
  prs.risk_level,
  COUNT(*) AS prs,
  SUM(CASE WHEN d.decided THEN 1 ELSE 0 END) AS prs_decided,
  SUM(CASE WHEN d.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(CAST(SUM(CASE WHEN d.merged THEN 1 ELSE 0 END) AS DOUBLE) / NULLIF(SUM(CASE WHEN d.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  ROUND(CAST(SUM(CASE WHEN d.decided AND NOT d.merged THEN 1 ELSE 0 END) AS DOUBLE) / NULLIF(SUM(CASE WHEN d.decided THEN 1 ELSE 0 END), 0), 4) AS rejection_rate
FROM prs
LEFT JOIN pr_decisions d ON d.repo = prs.repo AND d.number = prs.pull_number
GROUP BY prs.risk_level
ORDER BY CASE prs.risk_level WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 5 END
