-- hydration_quality: outcomes against how well context hydration went (with --tasks;
-- tasks.hydration_score, 0 to 1, as the platform scored it), in quarters of the score.
--   hydration_band           [0, 0.25), [0.25, 0.5), [0.5, 0.75), [0.75, 1]; '(unscored)' without a score
--   tasks, failure_rate      tasks; those not COMPLETED / tasks
--   prs_decided, merge_rate  PRs merged or closed unmerged at capture; merged / prs_decided
--   prs_open                 PRs still open at capture: out of the merge rate
WITH banded AS (
  SELECT
    t.*,
    CASE
      WHEN t.hydration_score IS NULL THEN '(unscored)'
      WHEN t.hydration_score < 0.25 THEN '[0, 0.25)'
      WHEN t.hydration_score < 0.5 THEN '[0.25, 0.5)'
      WHEN t.hydration_score < 0.75 THEN '[0.5, 0.75)'
      ELSE '[0.75, 1]'
    END AS hydration_band
  FROM tasks t
)
SELECT
  b.hydration_band,
  COUNT(*) AS tasks,
  ROUND(CAST(SUM(CASE WHEN b.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*), 4) AS failure_rate,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open
FROM banded b
LEFT JOIN pr_decisions p ON p.repo = b.pr_repo AND p.number = b.pr_number
GROUP BY b.hydration_band
ORDER BY b.hydration_band
