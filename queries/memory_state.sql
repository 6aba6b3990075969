-- memory_state: outcomes against the state of the platform's memory the tasks ran with (with
-- --tasks; tasks.memory_version as the platform recorded it) and how well context hydration
-- went (tasks.hydration_score, 0 to 1).
--   memory_version           '(none)' when the task records none
--   tasks, failure_rate      tasks; those not COMPLETED / tasks
--   prs_decided, merge_rate  PRs merged or closed unmerged at capture; merged / prs_decided
--   prs_open                 PRs still open at capture: out of the merge rate
--   first_review_merge_rate  merged with no review round asking for a revision / decided PRs with reviews captured
--   tasks_scored             tasks with a hydration score
--   mean_hydration_score     their mean score
SELECT
  COALESCE(t.memory_version, '(none)') AS memory_version,
  COUNT(*) AS tasks,
  ROUND(CAST(SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*), 4) AS failure_rate,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(p.first_review_merge), 4) AS first_review_merge_rate,
  COUNT(t.hydration_score) AS tasks_scored,
  ROUND(AVG(t.hydration_score), 4) AS mean_hydration_score
FROM tasks t
LEFT JOIN pr_decisions p ON p.repo = t.pr_repo AND p.number = t.pr_number
GROUP BY COALESCE(t.memory_version, '(none)')
ORDER BY memory_version
