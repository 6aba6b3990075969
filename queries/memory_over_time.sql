-- memory_over_time: the memory-effectiveness figures per repository and month, over agent PRs
-- (pr_feedback.opened_by: a task names it in pr_url, or a create_pull_request safe output
-- opened it). Each figure as in prompt_versions (NULLs left out of their rate; docs/TASKS.md).
--   repo, year, month         the PR's repository; the year and month it was opened (UTC)
--   prs                       agent PRs opened that month
--   prs_open                  of them, still open at capture: undecided, so left out of first_review_merge_rate
--   first_review_merge_rate   merged with no review round asking for a revision / decided PRs (merged or closed) with reviews captured
--   mean_revision_cycles      review rounds asking for a revision before the merge, per merged PR
--   first_push_ci_pass_rate   first push's CI succeeded / first push's CI finished
--   review_comment_density    reviewer comments per PR
--   repeated_mistake_count    reviewer comments saying what a reviewer said on an earlier PR
--   mean_hours_to_pr          time to PR: hours from task submission to PR creation, over the task PRs
--                             (a safe output's PR has no task submission: left out)
-- Each memory figure is the mean of its PR term in the view pr_memory_figures, where each is defined once
-- (queries/views/pr_memory_figures.sql); repeated mistakes are the sum of repeated_mistake_count.
SELECT
  p.repo,
  CAST(EXTRACT(YEAR FROM p.created_at) AS BIGINT) AS year,
  CAST(EXTRACT(MONTH FROM p.created_at) AS BIGINT) AS month,
  COUNT(*) AS prs,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(p.first_review_merge), 4) AS first_review_merge_rate,
  ROUND(AVG(p.revision_cycles), 4) AS mean_revision_cycles,
  ROUND(AVG(p.first_push_ci_pass), 4) AS first_push_ci_pass_rate,
  ROUND(AVG(p.review_comment_density), 4) AS review_comment_density,
  SUM(p.repeated_mistake_count) AS repeated_mistake_count,
  ROUND(AVG(p.hours_to_pr), 4) AS mean_hours_to_pr
FROM pr_memory_figures p
WHERE p.opened_by IS NOT NULL AND p.created_at IS NOT NULL
GROUP BY p.repo, CAST(EXTRACT(YEAR FROM p.created_at) AS BIGINT), CAST(EXTRACT(MONTH FROM p.created_at) AS BIGINT)
ORDER BY p.repo, year, month
