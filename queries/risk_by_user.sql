-- risk_by_user: the risk level distribution of the task PRs per user the tasks ran for (with
-- --tasks): one task, one PR (pr_risk rows of a task).
--   user_id          the task's user_id ('(none)' when absent)
--   task_prs         tasks whose pr_url names a PR
--   low, medium, high, critical   of them, PRs at each level
--   risk_unknown     PRs whose files were not captured (no level)
SELECT
  COALESCE(t.user_id, '(none)') AS user_id,
  COUNT(*) AS task_prs,
  SUM(CASE WHEN r.risk_level = 'low' THEN 1 ELSE 0 END) AS low,
  SUM(CASE WHEN r.risk_level = 'medium' THEN 1 ELSE 0 END) AS medium,
  SUM(CASE WHEN r.risk_level = 'high' THEN 1 ELSE 0 END) AS high,
  SUM(CASE WHEN r.risk_level = 'critical' THEN 1 ELSE 0 END) AS critical,
  SUM(CASE WHEN r.risk_level IS NULL THEN 1 ELSE 0 END) AS risk_unknown
FROM pr_risk r
JOIN tasks t ON t.task_id = r.task_id
GROUP BY COALESCE(t.user_id, '(none)')
ORDER BY user_id
