-- by_run: outcome counts and the three acceptance rates per workflow run and window.
--   count, evaluable_outputs (status not skipped or unknown: the denominator of the rates),
--   accepted, rejected, pending, ignored, unknown, skipped, and the rates as in acceptance_by_window
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
SELECT
  run_id,
  eval_window,
  COUNT(*) AS count,
  SUM(evaluable) AS evaluable_outputs,
  SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  SUM(CASE WHEN outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
  SUM(CASE WHEN outcome_status = 'ignored' THEN 1 ELSE 0 END) AS ignored,
  SUM(CASE WHEN outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  SUM(CASE WHEN outcome_status = 'skipped' THEN 1 ELSE 0 END) AS skipped,
  ROUND(CAST(SUM(strict_accepted) AS DOUBLE) / NULLIF(SUM(evaluable), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(human_check_accepted) AS DOUBLE) / NULLIF(SUM(evaluable), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(sticky_artifact) AS DOUBLE) / NULLIF(SUM(evaluable), 0), 4) AS sticky_artifact_rate
FROM output_flags
GROUP BY run_id, eval_window, window_order
ORDER BY run_id, window_order
