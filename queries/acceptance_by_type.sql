-- acceptance_by_type: counts and the three acceptance rates per safe-output type and evaluation window, each
-- charted rate with its 95% interval (terms: docs/DATASET.md).
--   count                        outputs of the type
--   evaluable_outputs            status not skipped or unknown (denominator of every rate below but unknown_rate)
--   strict_acceptance_rate       accepted+strong / evaluable
--   human_check_acceptance_rate  accepted+(strong or medium) / evaluable
--   sticky_artifact_rate         (accepted+weak or signal target_exists_only) / evaluable
--   RATE_ci_low, RATE_ci_high    the 95% Wilson score interval of each of the three, as in acceptance_by_window
--   rejection_rate               rejected / evaluable
--   pending_rate                 pending / evaluable
--   unknown_rate                 unknown / (count - skipped): the share that could not be judged
--   accepted_with_time           accepted outputs with a time to acceptance: the n of the median below
--   median_time_to_acceptance    median hours from the action to the accepting event, over accepted outputs with a time
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH counts AS (
  SELECT
    safe_output_type,
    eval_window,
    window_order,
    COUNT(*) AS count,
    SUM(evaluable) AS evaluable_outputs,
    SUM(strict_accepted) AS strict_k,
    SUM(human_check_accepted) AS human_check_k,
    SUM(sticky_artifact) AS sticky_k,
    SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
    SUM(CASE WHEN outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
    SUM(CASE WHEN outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
    SUM(CASE WHEN outcome_status <> 'skipped' THEN 1 ELSE 0 END) AS not_skipped,
    COUNT(CASE WHEN outcome_status = 'accepted' THEN time_to_outcome_hours END) AS accepted_with_time,
    MEDIAN(CASE WHEN outcome_status = 'accepted' THEN time_to_outcome_hours END) AS median_time
  FROM output_flags
  GROUP BY safe_output_type, eval_window, window_order
),
-- The rates' terms as DOUBLE, so every engine computes them alike (the intervals take them as DOUBLE too).
w AS (
  SELECT
    *,
    CAST(evaluable_outputs AS DOUBLE) AS n,
    CAST(strict_k AS DOUBLE) AS k1,
    CAST(human_check_k AS DOUBLE) AS k2,
    CAST(sticky_k AS DOUBLE) AS k3
  FROM counts
)
SELECT
  safe_output_type,
  eval_window,
  count,
  evaluable_outputs,
  ROUND(k1 / NULLIF(n, 0), 4) AS strict_acceptance_rate,
  ROUND(wilson_low(k1, n), 4) AS strict_acceptance_rate_ci_low,
  ROUND(wilson_high(k1, n), 4) AS strict_acceptance_rate_ci_high,
  ROUND(k2 / NULLIF(n, 0), 4) AS human_check_acceptance_rate,
  ROUND(wilson_low(k2, n), 4) AS human_check_acceptance_rate_ci_low,
  ROUND(wilson_high(k2, n), 4) AS human_check_acceptance_rate_ci_high,
  ROUND(k3 / NULLIF(n, 0), 4) AS sticky_artifact_rate,
  ROUND(wilson_low(k3, n), 4) AS sticky_artifact_rate_ci_low,
  ROUND(wilson_high(k3, n), 4) AS sticky_artifact_rate_ci_high,
  ROUND(CAST(rejected AS DOUBLE) / NULLIF(evaluable_outputs, 0), 4) AS rejection_rate,
  ROUND(CAST(pending AS DOUBLE) / NULLIF(evaluable_outputs, 0), 4) AS pending_rate,
  ROUND(CAST(unknown AS DOUBLE) / NULLIF(not_skipped, 0), 4) AS unknown_rate,
  accepted_with_time,
  ROUND(median_time, 3) AS median_time_to_acceptance
FROM w
ORDER BY safe_output_type, window_order
