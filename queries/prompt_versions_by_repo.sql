-- prompt_versions_by_repo: "did merge rates improve after prompt version X was deployed for repo Y?":
-- per repository and prompt version, the tasks' plain merge rate (with --tasks; over time:
-- prompt_versions_over_time). The PR's state is the snapshot's (pr_feedback).
--   repo               the task's repo (else its PR's repository; '(none)' when neither)
--   prompt_version     the task's prompt_version ('(none)' when absent)
--   first_task_month   YYYYMM of the version's first task submission in the repository: when it
--                      was deployed there, as far as the tasks show (tasks.submitted_at)
--   tasks              tasks
--   prs_decided        their PRs merged or closed unmerged at capture: the merge rate's n; `decided` in the view pr_decisions (queries/views/pr_decisions.sql)
--   merged             of them, merged
--   merge_rate         merged / prs_decided (any merge: no review figure enters it)
--   prs_open           their PRs still open at capture: undecided, out of merge_rate
SELECT
  COALESCE(t.repo, t.pr_repo, '(none)') AS repo,
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  CAST(MIN(EXTRACT(YEAR FROM t.submitted_at) * 100 + EXTRACT(MONTH FROM t.submitted_at)) AS BIGINT) AS first_task_month,
  COUNT(*) AS tasks,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS merged,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open
FROM tasks t
LEFT JOIN pr_decisions p ON p.repo = t.pr_repo AND p.number = t.pr_number
GROUP BY COALESCE(t.repo, t.pr_repo, '(none)'), COALESCE(t.prompt_version, '(none)')
ORDER BY repo, first_task_month, prompt_version
