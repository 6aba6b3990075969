-- aidev/accepted_over_time: per agent, its PRs accepted at 24h, at 7d, and durably at 30d, over ONE
-- cohort per agent: the PRs observable in all three windows (status neither skipped nor unknown at
-- 24h, at 7d and at 30d), as accepted_over_time does for a whole study.
--   cohort_prs               the cohort's size: the denominator of the three rates
--   accepted_at_24h          cohort PRs accepted (strong or medium evidence) at 24h / cohort_prs
--   accepted_at_7d           the same at 7d
--   accepted_durable_at_30d  the same at 30d; merged work reverted by then counts as rejected
-- An agent with no PR observable in all three has cohort_prs 0 and NULL rates. Unrounded.
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH per_pr AS (
  SELECT
    workflow_name AS agent,
    safe_output_id,
    MAX(CASE WHEN eval_window = '24h' THEN evaluable ELSE 0 END) AS seen_24h,
    MAX(CASE WHEN eval_window = '7d' THEN evaluable ELSE 0 END) AS seen_7d,
    MAX(CASE WHEN eval_window = '30d' THEN evaluable ELSE 0 END) AS seen_30d,
    MAX(CASE WHEN eval_window = '24h' THEN human_check_accepted ELSE 0 END) AS accepted_24h,
    MAX(CASE WHEN eval_window = '7d' THEN human_check_accepted ELSE 0 END) AS accepted_7d,
    MAX(CASE WHEN eval_window = '30d' THEN human_check_accepted ELSE 0 END) AS accepted_30d
  FROM output_flags
  WHERE run_id LIKE 'aidev:%'
  GROUP BY workflow_name, safe_output_id
),
-- 1 for a PR observable in all three windows, else 0: the cohort, as a factor.
cohort AS (
  SELECT agent, seen_24h * seen_7d * seen_30d AS in_cohort, accepted_24h, accepted_7d, accepted_30d FROM per_pr
)
SELECT
  agent,
  SUM(in_cohort) AS cohort_prs,
  CAST(SUM(in_cohort * accepted_24h) AS DOUBLE) / NULLIF(SUM(in_cohort), 0) AS accepted_at_24h,
  CAST(SUM(in_cohort * accepted_7d) AS DOUBLE) / NULLIF(SUM(in_cohort), 0) AS accepted_at_7d,
  CAST(SUM(in_cohort * accepted_30d) AS DOUBLE) / NULLIF(SUM(in_cohort), 0) AS accepted_durable_at_30d
FROM cohort
GROUP BY agent
ORDER BY agent
