-- output_flags: every row of `outcomes` (a safe output in one window) with the flags the acceptance
-- rates count, 1 or 0, defined here once for every bundled query (meanings: docs/DATASET.md, Views).
-- Each rate is a flag's sum over evaluable's: strict_acceptance_rate = SUM(strict_accepted) / SUM(evaluable),
-- human_check_acceptance_rate = SUM(human_check_accepted) / SUM(evaluable), sticky_artifact_rate =
-- SUM(sticky_artifact) / SUM(evaluable).
SELECT
  *,
  CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END AS evaluable,
  CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END AS strict_accepted,
  CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END AS human_check_accepted,
  CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END AS sticky_artifact
FROM outcomes
