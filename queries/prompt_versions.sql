-- prompt_versions: seed 004's effectiveness figures per prompt version (with --tasks).
--   prompt_version           the task's prompt_version ('(none)' when absent)
--   tasks, completed, failed  tasks; status COMPLETED; any other status
--   prs_captured             tasks whose PR (pr_url) is in the snapshot
--   first_review_merge_rate  of those, PRs merged with no review requesting changes
--   mean_revision_cycles     reviews requesting changes per captured PR
--   mean_hours_to_pr         from the task's task_created event to its pr_created event
SELECT
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  COUNT(*) AS tasks,
  SUM(CASE WHEN t.status = 'COMPLETED' THEN 1 ELSE 0 END) AS completed,
  SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN p.number IS NOT NULL THEN 1 ELSE 0 END) AS prs_captured,
  ROUND(CAST(SUM(CASE WHEN p.merged AND COALESCE(r.changes_requested, 0) = 0 THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.number IS NOT NULL THEN 1 ELSE 0 END), 0), 4) AS first_review_merge_rate,
  ROUND(AVG(CASE WHEN p.number IS NOT NULL THEN CAST(COALESCE(r.changes_requested, 0) AS DOUBLE) END), 4) AS mean_revision_cycles,
  ROUND(AVG((EXTRACT(EPOCH FROM e.pr_at) - EXTRACT(EPOCH FROM e.created_at)) / 3600.0), 4) AS mean_hours_to_pr
FROM tasks t
LEFT JOIN pull_requests p ON p.repo = t.pr_repo AND p.number = t.pr_number
LEFT JOIN (
  SELECT repo, pull_number, SUM(CASE WHEN state = 'CHANGES_REQUESTED' THEN 1 ELSE 0 END) AS changes_requested
  FROM reviews GROUP BY repo, pull_number
) r ON r.repo = t.pr_repo AND r.pull_number = t.pr_number
LEFT JOIN (
  SELECT task_id,
    MIN(CASE WHEN event_type = 'task_created' THEN timestamp END) AS created_at,
    MIN(CASE WHEN event_type = 'pr_created' THEN timestamp END) AS pr_at
  FROM task_events GROUP BY task_id
) e ON e.task_id = t.task_id
GROUP BY COALESCE(t.prompt_version, '(none)')
ORDER BY prompt_version
