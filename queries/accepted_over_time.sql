-- accepted_over_time: accepted at 24h, at 7d, and durably at 30d, one row.
--   accepted_at_24h          share of outputs judged at 24h that were accepted (strong or medium evidence) by then
--   accepted_at_7d           the same at 7d
--   accepted_durable_at_30d  the same at 30d; merged work reverted by then counts as rejected, so this is acceptance that lasted
-- Denominator of each: evaluable outputs in that window (status not skipped or unknown; a window not yet
-- observable is unknown, so outputs too recent for it drop out of its denominator).
SELECT
  ROUND(CAST(SUM(CASE WHEN eval_window = '24h' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN eval_window = '24h' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS accepted_at_24h,
  ROUND(CAST(SUM(CASE WHEN eval_window = '7d' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN eval_window = '7d' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS accepted_at_7d,
  ROUND(CAST(SUM(CASE WHEN eval_window = '30d' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN eval_window = '30d' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END), 0), 4) AS accepted_durable_at_30d
FROM outcomes
