-- acceptance_by_type: counts and the three acceptance rates per safe-output type and evaluation window (terms: docs/DATASET.md).
--   count                        outputs of the type
--   evaluable_outputs            status not skipped or unknown (denominator of every rate below but unknown_rate)
--   strict_acceptance_rate       accepted+strong / evaluable
--   human_check_acceptance_rate  accepted+(strong or medium) / evaluable
--   sticky_artifact_rate         (accepted+weak or signal target_exists_only) / evaluable
--   rejection_rate               rejected / evaluable
--   pending_rate                 pending / evaluable
--   unknown_rate                 unknown / (count - skipped): the share that could not be judged
--   median_time_to_acceptance    median hours from the action to the accepting event, over accepted outputs with a time
SELECT
  safe_output_type,
  eval_window,
  COUNT(*) AS count,
  SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_outputs,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS sticky_artifact_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS rejection_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'pending' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS pending_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'unknown' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status <> 'skipped' THEN 1 ELSE 0 END), 0), 4) AS unknown_rate,
  ROUND(MEDIAN(CASE WHEN outcome_status = 'accepted' THEN time_to_outcome_hours END), 3) AS median_time_to_acceptance
FROM outcomes
GROUP BY safe_output_type, eval_window, window_order
ORDER BY safe_output_type, window_order
