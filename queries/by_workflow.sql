-- by_workflow: the three acceptance rates per workflow and window, each with its 95% interval (terms: docs/DATASET.md).
--   count              outputs of the workflow
--   evaluable_outputs  status not skipped or unknown: the denominator of the three rates
--   strict_acceptance_rate, human_check_acceptance_rate, sticky_artifact_rate, and each RATE_ci_low, RATE_ci_high
--                      (its 95% Wilson score interval): as in acceptance_by_window
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH counts AS (
  SELECT
    COALESCE(workflow_name, '(unknown)') AS workflow_name,
    eval_window,
    window_order,
    COUNT(*) AS count,
    SUM(evaluable) AS evaluable_outputs,
    SUM(strict_accepted) AS strict_k,
    SUM(human_check_accepted) AS human_check_k,
    SUM(sticky_artifact) AS sticky_k
  FROM output_flags
  GROUP BY COALESCE(workflow_name, '(unknown)'), eval_window, window_order
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
  workflow_name,
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
  ROUND(wilson_high(k3, n), 4) AS sticky_artifact_rate_ci_high
FROM w
ORDER BY workflow_name, window_order
