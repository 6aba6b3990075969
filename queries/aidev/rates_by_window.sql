-- aidev/rates_by_window: hindsight's three acceptance rates of each agent's PRs, per window, with their n
-- (terms: docs/DATASET.md).
--   prs                          the agent's PRs
--   evaluable_prs                PRs whose status in the window is neither skipped nor unknown: the denominator of
--                                every rate below (a PR too recent for the window is unknown there)
--   strict_acceptance_rate       accepted with strong evidence / evaluable_prs
--   human_check_acceptance_rate  accepted with strong or medium evidence / evaluable_prs
--   sticky_artifact_rate         (accepted with weak evidence, or signal target_exists_only) / evaluable_prs
--   rejection_rate               rejected / evaluable_prs
-- A merge by the PR's own author counts as the agent's own act (policy own_act_counts), and a merge whose
-- merger AIDev did not record is at most medium (policy unattributed_full_strength). Unrounded.
SELECT
  workflow_name AS agent,
  eval_window,
  COUNT(*) AS prs,
  SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS evaluable_prs,
  CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'strong' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0) AS strict_acceptance_rate,
  CAST(SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0) AS human_check_acceptance_rate,
  CAST(SUM(CASE WHEN (outcome_status = 'accepted' AND evidence_strength = 'weak') OR human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0) AS sticky_artifact_rate,
  CAST(SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0) AS rejection_rate
FROM outcomes
WHERE run_id LIKE 'aidev:%'
GROUP BY workflow_name, eval_window, window_order
ORDER BY agent, window_order
