-- prompt_versions: the memory-effectiveness figures per prompt version (with --tasks).
-- Each PR figure comes from pr_feedback (NULL where its capture is missing; a NULL is left
-- out of its rate, never counted as zero). Definitions: docs/TASKS.md.
--   prompt_version           the task's prompt_version ('(none)' when absent)
--   tasks, completed, failed  tasks; status COMPLETED; any other status
--   prs_captured             tasks whose PR (pr_url) is in the snapshot
--   prs_open                 of them, PRs still open at capture: undecided, so left out of first_review_merge_rate
--   first_review_merge_rate  PRs merged with no review round asking for a revision / decided PRs (merged or closed) with reviews captured
--   mean_revision_cycles     review rounds asking for a revision before the merge, per merged PR (a round: the
--                            reviews of one version of the PR, i.e. of one commit; docs/TASKS.md)
--   first_push_ci_pass_rate  PRs whose first push's CI succeeded / PRs whose first push's CI finished
--   review_comment_density   reviewer comments per PR (review bodies, inline and conversation comments)
--   repeated_mistake_count   reviewer comments saying what a reviewer said on an earlier PR (review_feedback)
--   mean_hours_to_pr         time to PR: hours from the task's submission to its pr_created event (tasks.hours_to_pr)
-- Each memory figure is the mean of its PR term in the view pr_memory_figures, where each is defined once
-- (queries/views/pr_memory_figures.sql); repeated mistakes are the sum of repeated_mistake_count.
SELECT
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  COUNT(*) AS tasks,
  SUM(CASE WHEN t.status = 'COMPLETED' THEN 1 ELSE 0 END) AS completed,
  SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN p.number IS NOT NULL THEN 1 ELSE 0 END) AS prs_captured,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(p.first_review_merge), 4) AS first_review_merge_rate,
  ROUND(AVG(p.revision_cycles), 4) AS mean_revision_cycles,
  ROUND(AVG(p.first_push_ci_pass), 4) AS first_push_ci_pass_rate,
  ROUND(AVG(p.review_comment_density), 4) AS review_comment_density,
  SUM(p.repeated_mistake_count) AS repeated_mistake_count,
  ROUND(AVG(t.hours_to_pr), 4) AS mean_hours_to_pr
FROM tasks t
LEFT JOIN pr_memory_figures p ON p.repo = t.pr_repo AND p.number = t.pr_number
GROUP BY COALESCE(t.prompt_version, '(none)')
ORDER BY prompt_version
