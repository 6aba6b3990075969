-- prompt_versions: seed 004's memory-effectiveness figures per prompt version (with --tasks).
-- Each PR figure comes from pr_feedback (NULL where its capture is missing; a NULL is left
-- out of its rate, never counted as zero).
--   prompt_version           the task's prompt_version ('(none)' when absent)
--   tasks, completed, failed  tasks; status COMPLETED; any other status
--   prs_captured             tasks whose PR (pr_url) is in the snapshot
--   first_review_merge_rate  PRs merged with no review requesting changes / PRs with reviews captured
--   mean_revision_cycles     reviews requesting changes before the merge, per merged PR
--   first_push_ci_pass_rate  PRs whose first push's CI succeeded / PRs whose first push's CI finished
--   review_comment_density   reviewer comments per PR (review bodies, inline and conversation comments)
--   repeated_mistake_count   reviewer comments saying what a reviewer said on an earlier PR (review_feedback)
--   mean_hours_to_pr         from the task's task_created event to its pr_created event
SELECT
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  COUNT(*) AS tasks,
  SUM(CASE WHEN t.status = 'COMPLETED' THEN 1 ELSE 0 END) AS completed,
  SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN p.number IS NOT NULL THEN 1 ELSE 0 END) AS prs_captured,
  ROUND(CAST(SUM(CASE WHEN p.first_review_merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(COUNT(p.first_review_merged), 0), 4) AS first_review_merge_rate,
  ROUND(AVG(CASE WHEN p.merged THEN CAST(p.review_rounds AS DOUBLE) END), 4) AS mean_revision_cycles,
  ROUND(CAST(SUM(CASE WHEN p.first_push_ci = 'success' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.first_push_ci IN ('success', 'failure') THEN 1 ELSE 0 END), 0), 4) AS first_push_ci_pass_rate,
  ROUND(AVG(CAST(p.reviewer_comments AS DOUBLE)), 4) AS review_comment_density,
  SUM(p.repeated_mistake_count) AS repeated_mistake_count,
  ROUND(AVG((EXTRACT(EPOCH FROM e.pr_at) - EXTRACT(EPOCH FROM e.created_at)) / 3600.0), 4) AS mean_hours_to_pr
FROM tasks t
LEFT JOIN pr_feedback p ON p.repo = t.pr_repo AND p.number = t.pr_number
LEFT JOIN (
  SELECT task_id,
    MIN(CASE WHEN event_type = 'task_created' THEN timestamp END) AS created_at,
    MIN(CASE WHEN event_type = 'pr_created' THEN timestamp END) AS pr_at
  FROM task_events GROUP BY task_id
) e ON e.task_id = t.task_id
GROUP BY COALESCE(t.prompt_version, '(none)')
ORDER BY prompt_version
