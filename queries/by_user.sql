-- by_user: the evaluation pipeline's figures per user the tasks ran for (tasks.user_id; with
-- --tasks). Each figure as in prompt_variants and prompt_versions (NULLs left out; docs/TASKS.md).
--   user_id                  '(none)' when the task records none
--   tasks, failure_rate      tasks; those not COMPLETED / tasks
--   prs_decided, merge_rate  PRs merged or closed unmerged at capture; merged / prs_decided
--   prs_open                 PRs still open at capture: out of both merge rates
--   first_review_merge_rate  merged with no review round asking for a revision / decided PRs with reviews captured
--   mean_revision_cycles     review rounds asking for a revision before the merge, per merged PR
--   first_push_ci_pass_rate  PRs whose first push's CI passed / those whose first push's CI finished
--   review_comment_density   reviewer comments per PR
--   repeated_mistake_count   reviewer comments saying what a reviewer said on an earlier PR
--   mean_hours_to_pr         time to PR: hours from task submission to its pr_created event
--   mean_cost_usd            cost_usd per task
-- Each memory figure is the mean of its PR term in the view pr_memory_figures, where each is defined once
-- (queries/views/pr_memory_figures.sql); decided PRs in the view pr_decisions (queries/views/pr_decisions.sql); repeated mistakes are the sum of repeated_mistake_count.
SELECT
  COALESCE(t.user_id, '(none)') AS user_id,
  COUNT(*) AS tasks,
  ROUND(CAST(SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*), 4) AS failure_rate,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(p.first_review_merge), 4) AS first_review_merge_rate,
  ROUND(AVG(p.revision_cycles), 4) AS mean_revision_cycles,
  ROUND(AVG(p.first_push_ci_pass), 4) AS first_push_ci_pass_rate,
  ROUND(AVG(p.review_comment_density), 4) AS review_comment_density,
  SUM(p.repeated_mistake_count) AS repeated_mistake_count,
  ROUND(AVG(t.hours_to_pr), 4) AS mean_hours_to_pr,
  ROUND(AVG(t.cost_usd), 4) AS mean_cost_usd
FROM tasks t
LEFT JOIN pr_decisions p ON p.repo = t.pr_repo AND p.number = t.pr_number
GROUP BY COALESCE(t.user_id, '(none)')
ORDER BY user_id
