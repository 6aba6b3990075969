-- risk_by_outcome: PR risk level against what became of the PR (snapshot window), over the PRs
-- agent outputs opened or pushed to (pr_risk rows of a safe output; a task's PR has no outcome row).
--   risk_level                    low, medium, high, critical; '(unknown)' when the PR's files were not captured
--   prs                           PRs opened or pushed to by agent outputs
--   evaluable_prs                 outcome status not skipped or unknown: the denominator of the three rates
--   accepted_strong|medium|weak   accepted outputs by evidence strength
--   rejected, pending, ignored, unknown   their outcome in the snapshot window
--   strict_acceptance_rate        accepted+strong / evaluable_prs
--   human_check_acceptance_rate   accepted+(strong or medium) / evaluable_prs
--   sticky_artifact_rate          (accepted+weak or signal target_exists_only) / evaluable_prs
-- The three rates are never merged into one number (terms: docs/DATASET.md).
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
SELECT
  COALESCE(r.risk_level, '(unknown)') AS risk_level,
  COUNT(*) AS prs,
  SUM(o.evaluable) AS evaluable_prs,
  SUM(o.strict_accepted) AS accepted_strong,
  SUM(CASE WHEN o.outcome_status = 'accepted' AND o.evidence_strength = 'medium' THEN 1 ELSE 0 END) AS accepted_medium,
  SUM(CASE WHEN o.outcome_status = 'accepted' AND o.evidence_strength = 'weak' THEN 1 ELSE 0 END) AS accepted_weak,
  SUM(CASE WHEN o.outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  SUM(CASE WHEN o.outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
  SUM(CASE WHEN o.outcome_status = 'ignored' THEN 1 ELSE 0 END) AS ignored,
  SUM(CASE WHEN o.outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  ROUND(CAST(SUM(o.strict_accepted) AS DOUBLE) / NULLIF(SUM(o.evaluable), 0), 4) AS strict_acceptance_rate,
  ROUND(CAST(SUM(o.human_check_accepted) AS DOUBLE) / NULLIF(SUM(o.evaluable), 0), 4) AS human_check_acceptance_rate,
  ROUND(CAST(SUM(o.sticky_artifact) AS DOUBLE) / NULLIF(SUM(o.evaluable), 0), 4) AS sticky_artifact_rate
FROM pr_risk r
JOIN output_flags o ON o.safe_output_id = r.safe_output_id AND o.eval_window = 'snapshot'
GROUP BY COALESCE(r.risk_level, '(unknown)')
ORDER BY CASE COALESCE(r.risk_level, '(unknown)') WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 5 END
