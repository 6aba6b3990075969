-- by_workflow: the three acceptance rates per workflow and window (terms: docs/DATASET.md).
--   count              outputs of the workflow
--   evaluable_outputs  status not skipped or unknown: the denominator of the three rates
--   strict_acceptance_rate, human_check_acceptance_rate, sticky_artifact_rate: as in acceptance_by_window
SELECT
  COALESCE(workflow_name, '(unknown)') AS workflow_name,
  eval_window,
  COUNT(*) AS count,
  SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_outputs,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS sticky_artifact_rate
FROM outcomes
GROUP BY COALESCE(workflow_name, '(unknown)'), eval_window, window_order
ORDER BY workflow_name, window_order
