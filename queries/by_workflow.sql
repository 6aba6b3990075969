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
-- The interval's terms as DOUBLE, so every engine computes them alike.
w AS (
  SELECT
    *,
    CAST(evaluable_outputs AS DOUBLE) AS n,
    CAST(strict_k AS DOUBLE) AS k1,
    CAST(human_check_k AS DOUBLE) AS k2,
    CAST(sticky_k AS DOUBLE) AS k3,
    CAST(1.96 AS DOUBLE) AS z
  FROM counts
)
SELECT
  workflow_name,
  eval_window,
  count,
  evaluable_outputs,
  ROUND(k1 / NULLIF(n, 0), 4) AS strict_acceptance_rate,
  ROUND((k1 + z * z / 2 - z * SQRT(k1 * (n - k1) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS strict_acceptance_rate_ci_low,
  ROUND(1 - (n - k1 + z * z / 2 - z * SQRT(k1 * (n - k1) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS strict_acceptance_rate_ci_high,
  ROUND(k2 / NULLIF(n, 0), 4) AS human_check_acceptance_rate,
  ROUND((k2 + z * z / 2 - z * SQRT(k2 * (n - k2) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS human_check_acceptance_rate_ci_low,
  ROUND(1 - (n - k2 + z * z / 2 - z * SQRT(k2 * (n - k2) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS human_check_acceptance_rate_ci_high,
  ROUND(k3 / NULLIF(n, 0), 4) AS sticky_artifact_rate,
  ROUND((k3 + z * z / 2 - z * SQRT(k3 * (n - k3) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS sticky_artifact_rate_ci_low,
  ROUND(1 - (n - k3 + z * z / 2 - z * SQRT(k3 * (n - k3) / NULLIF(n, 0) + z * z / 4)) / (n + z * z), 4) AS sticky_artifact_rate_ci_high
FROM w
ORDER BY workflow_name, window_order
