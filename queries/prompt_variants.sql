-- prompt_variants: the A/B comparison of prompt variants (the task's prompt_version) on the
-- evaluation pipeline's outcomes: merge rate, failure rate, token usage, duration and cost
-- (with --tasks). Each mean is over the tasks that recorded its field (NULLs left out).
--   prompt_version     the variant ('(none)' when absent)
--   tasks              tasks run with it: failure_rate's n
--   failure_rate       tasks whose status is not COMPLETED (FAILED, CANCELLED, TIMED_OUT) / tasks
--   prs_decided        their PRs merged or closed unmerged at capture: merge_rate's n; `decided` in the view pr_decisions (queries/views/pr_decisions.sql)
--   merge_rate         merged / prs_decided
--   prs_open           their PRs still open at capture: undecided, out of merge_rate
--   mean_tokens        input_tokens + output_tokens per task (tasks recording both)
--   mean_duration_s    duration_s per task
--   mean_cost_usd      cost_usd per task
SELECT
  COALESCE(t.prompt_version, '(none)') AS prompt_version,
  COUNT(*) AS tasks,
  ROUND(CAST(SUM(CASE WHEN t.status <> 'COMPLETED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*), 4) AS failure_rate,
  SUM(CASE WHEN p.decided THEN 1 ELSE 0 END) AS prs_decided,
  ROUND(CAST(SUM(CASE WHEN p.merged THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN p.decided THEN 1 ELSE 0 END), 0), 4) AS merge_rate,
  SUM(CASE WHEN p.state = 'open' THEN 1 ELSE 0 END) AS prs_open,
  ROUND(AVG(CAST(t.input_tokens + t.output_tokens AS DOUBLE)), 4) AS mean_tokens,
  ROUND(AVG(t.duration_s), 4) AS mean_duration_s,
  ROUND(AVG(t.cost_usd), 4) AS mean_cost_usd
FROM tasks t
LEFT JOIN pr_decisions p ON p.repo = t.pr_repo AND p.number = t.pr_number
GROUP BY COALESCE(t.prompt_version, '(none)')
ORDER BY prompt_version
