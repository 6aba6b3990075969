-- prompt_versions_over_time: per repository, month and prompt version, the tasks and their PRs
-- (with --tasks): the months before and after a version reached a repository, side by side.
-- Tasks are placed by their submission (tasks.submitted_at, UTC); a task without one is left out.
-- Each figure as in prompt_versions (NULLs left out of their rate; docs/TASKS.md).
--   repo, year, month, prompt_version   as in prompt_versions_by_repo
--   tasks, failed             tasks; of them, status other than COMPLETED
--   prs_decided               their PRs merged or closed unmerged at capture: merge_rate's n
--   merge_rate                merged / prs_decided
--   prs_open                  their PRs still open at capture: out of both merge rates
--   first_review_merge_rate   merged with no review round asking for a revision / decided PRs with reviews captured
--   mean_revision_cycles      review rounds asking for a revision before the merge, per merged PR
--   mean_hours_to_pr          time to PR: hours from task submission to its pr_created event
-- Each memory figure is the mean of its PR term in the view pr_memory_figures, where each is defined once
-- (queries/views/pr_memory_figures.sql); decided PRs in the view pr_decisions (queries/views/pr_decisions.sql).
SELECT
  COALESCE(t.repo, t.pr_repo, '(none)') AS repo,
  CAST(EXTRACT(YEAR FROM t.submitted_at) AS BIGINT) AS year,
  CAST(EXTRACT(MONTH FROM t.submitted_at) AS BIGINT) AS month,
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  COUNT(*) AS tasks,
  SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(p.first_review_merge), 4) AS first_review_merge_rate,
  ROUND(AVG(p.revision_cycles), 4) AS mean_revision_cycles,
  ROUND(AVG(t.hours_to_pr), 4) AS mean_hours_to_pr
FROM tasks t
LEFT JOIN pr_decisions p ON p.repo = t.pr_repo AND p.number = t.pr_number
WHERE t.submitted_at IS NOT NULL
GROUP BY COALESCE(t.repo, t.pr_repo, '(none)'), CAST(EXTRACT(YEAR FROM t.submitted_at) AS BIGINT),
  CAST(EXTRACT(MONTH FROM t.submitted_at) AS BIGINT), COALESCE(t.prompt_version, '(none)')
ORDER BY repo, year, month, prompt_version
