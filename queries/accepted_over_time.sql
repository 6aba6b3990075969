-- accepted_over_time: accepted at 24h, at 7d, and durably at 30d, one row, over ONE cohort.
-- Cohort: the outputs observable in all three windows, i.e. whose status is neither skipped
-- nor unknown at 24h, at 7d and at 30d. An output unknown in one window (too recent for it:
-- window_not_yet_observable; its history missing...) is left out of all three, so the three
-- rates share their denominator and can be compared; a window the dataset was not evaluated
-- at leaves the cohort empty (rates NULL).
--   cohort_outputs           the cohort's size: the denominator of the three rates
--   accepted_at_24h          cohort outputs accepted (strong or medium evidence) at 24h / cohort_outputs
--   accepted_at_7d           the same at 7d
--   accepted_durable_at_30d  the same at 30d; merged work reverted by then counts as rejected, so this is acceptance that lasted
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH per_output AS (
  SELECT
    safe_output_id,
    MAX(CASE WHEN eval_window = '24h' THEN evaluable ELSE 0 END) AS seen_24h,
    MAX(CASE WHEN eval_window = '7d' THEN evaluable ELSE 0 END) AS seen_7d,
    MAX(CASE WHEN eval_window = '30d' THEN evaluable ELSE 0 END) AS seen_30d,
    MAX(CASE WHEN eval_window = '24h' THEN human_check_accepted ELSE 0 END) AS accepted_24h,
    MAX(CASE WHEN eval_window = '7d' THEN human_check_accepted ELSE 0 END) AS accepted_7d,
    MAX(CASE WHEN eval_window = '30d' THEN human_check_accepted ELSE 0 END) AS accepted_30d
  FROM output_flags
  WHERE eval_window IN ('24h', '7d', '30d')
  GROUP BY safe_output_id
),
cohort AS (
  SELECT * FROM per_output WHERE seen_24h = 1 AND seen_7d = 1 AND seen_30d = 1
)
SELECT
  COUNT(*) AS cohort_outputs,
  ROUND(CAST(SUM(accepted_24h) AS DOUBLE) / NULLIF(COUNT(*), 0), 4) AS accepted_at_24h,
  ROUND(CAST(SUM(accepted_7d) AS DOUBLE) / NULLIF(COUNT(*), 0), 4) AS accepted_at_7d,
  ROUND(CAST(SUM(accepted_30d) AS DOUBLE) / NULLIF(COUNT(*), 0), 4) AS accepted_durable_at_30d
FROM cohort
