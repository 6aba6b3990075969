-- aidev/acceptance: hindsight's addition. Per agent and window, the three acceptance
-- rates of the agent's PRs, in percent of the evaluable ones.
--   evaluable                    PRs whose status is not skipped or unknown
--   strict_acceptance_pct        accepted with strong evidence / evaluable * 100
--   human_check_acceptance_pct   accepted with strong or medium evidence / evaluable * 100
-- A merge by the PR's own author counts as the agent's own act (policy own_act_counts), and a
-- merge whose merger AIDev did not record is at most medium (policy unattributed_full_strength).
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
SELECT
  workflow_name AS agent,
  eval_window,
  COUNT(*) AS prs,
  SUM(evaluable) AS evaluable,
  100.0 * SUM(strict_accepted) / NULLIF(SUM(evaluable), 0) AS strict_acceptance_pct,
  100.0 * SUM(human_check_accepted) / NULLIF(SUM(evaluable), 0) AS human_check_acceptance_pct
FROM output_flags
WHERE run_id LIKE 'aidev:%'
GROUP BY workflow_name, eval_window, window_order
ORDER BY agent, window_order
