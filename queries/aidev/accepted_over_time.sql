-- aidev/accepted_over_time: per agent, its PRs accepted at 24h, at 7d, and durably at 30d, over ONE
-- cohort per agent: the PRs observable in all three windows (status neither skipped nor unknown at
-- 24h, at 7d and at 30d), as accepted_over_time does for a whole study.
--   cohort_prs               the cohort's size: the denominator of the three rates
--   accepted_at_24h          cohort PRs accepted (strong or medium evidence) at 24h / cohort_prs
--   accepted_at_7d           the same at 7d
--   accepted_durable_at_30d  the same at 30d; merged work reverted by then counts as rejected
-- An agent with no PR observable in all three has cohort_prs 0 and NULL rates. Unrounded.
WITH per_pr AS (
  SELECT
    workflow_name AS agent,
    safe_output_id,
    MAX(CASE WHEN eval_window = '24h' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS seen_24h,
    MAX(CASE WHEN eval_window = '7d' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS seen_7d,
    MAX(CASE WHEN eval_window = '30d' AND outcome_status NOT IN ('skipped', 'unknown') THEN 1 ELSE 0 END) AS seen_30d,
    MAX(CASE WHEN eval_window = '24h' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS accepted_24h,
    MAX(CASE WHEN eval_window = '7d' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS accepted_7d,
    MAX(CASE WHEN eval_window = '30d' AND outcome_status = 'accepted' AND evidence_strength IN ('strong', 'medium') THEN 1 ELSE 0 END) AS accepted_30d
  FROM outcomes
  WHERE run_id LIKE 'aidev:%'
  GROUP BY workflow_name, safe_output_id
)
SELECT
  agent,
  SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN 1 ELSE 0 END) AS cohort_prs,
  CAST(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN accepted_24h ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN 1 ELSE 0 END), 0) AS accepted_at_24h,
  CAST(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN accepted_7d ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN 1 ELSE 0 END), 0) AS accepted_at_7d,
  CAST(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN accepted_30d ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1 THEN 1 ELSE 0 END), 0) AS accepted_durable_at_30d
FROM per_pr
GROUP BY agent
ORDER BY agent
