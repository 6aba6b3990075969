-- by_run: outcome counts and the three acceptance rates per workflow run and window.
--   count, evaluable_outputs (status not skipped or unknown: the denominator of the rates),
--   accepted, rejected, pending, ignored, unknown, skipped, and the rates as in acceptance_by_window
SELECT
  run_id,
  eval_window,
  COUNT(*) AS count,
  SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_outputs,
  SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  SUM(CASE WHEN outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
  SUM(CASE WHEN outcome_status = 'ignored' THEN 1 ELSE 0 END) AS ignored,
  SUM(CASE WHEN outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  SUM(CASE WHEN outcome_status = 'skipped' THEN 1 ELSE 0 END) AS skipped,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS sticky_artifact_rate
FROM outcomes
GROUP BY run_id, eval_window, window_order
ORDER BY run_id, window_order
