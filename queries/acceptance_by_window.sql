-- acceptance_by_window: the three acceptance rates per evaluation window (terms: docs/DATASET.md).
-- Denominator of every rate: evaluable_outputs = outputs whose status is not skipped or unknown.
--   strict_acceptance_rate       accepted with strong evidence / evaluable
--   human_check_acceptance_rate  accepted with strong or medium evidence / evaluable
--   sticky_artifact_rate         (accepted with weak evidence, or signal target_exists_only) / evaluable
-- The three are never merged into one number. A rate is NULL when nothing was evaluable.
SELECT
  eval_window,
  SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_outputs,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS sticky_artifact_rate
FROM outcomes
GROUP BY eval_window, window_order
ORDER BY window_order
