-- risk_by_outcome: seed 004's PR risk level against what became of the PR (snapshot window).
--   risk_level   low, medium, high, critical; '(unknown)' when the PR's files were not captured
--   prs          PRs opened or pushed to by agent outputs
--   accepted, rejected, pending, ignored, unknown   their outcome in the snapshot window
--   acceptance_rate   accepted / (prs - unknown)
SELECT
  COALESCE(r.risk_level, '(unknown)') AS risk_level,
  COUNT(*) AS prs,
  SUM(CASE WHEN o.outcome_status = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  SUM(CASE WHEN o.outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  SUM(CASE WHEN o.outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
  SUM(CASE WHEN o.outcome_status = 'ignored' THEN 1 ELSE 0 END) AS ignored,
  SUM(CASE WHEN o.outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  ROUND(CAST(SUM(CASE WHEN o.outcome_status = 'accepted' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN o.outcome_status <> 'unknown' THEN 1 ELSE 0 END), 0), 4) AS acceptance_rate
FROM pr_risk r
JOIN outcomes o ON o.safe_output_id = r.safe_output_id AND o.eval_window = 'snapshot'
GROUP BY COALESCE(r.risk_level, '(unknown)')
ORDER BY CASE COALESCE(r.risk_level, '(unknown)') WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 5 END
