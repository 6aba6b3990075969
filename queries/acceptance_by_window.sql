-- acceptance_by_window: the three acceptance rates per evaluation window, each with its 95% interval
-- (terms: docs/DATASET.md).
-- Denominator of every rate: evaluable_outputs = outputs whose status is not skipped or unknown.
--   strict_acceptance_rate       accepted with strong evidence / evaluable
--   human_check_acceptance_rate  accepted with strong or medium evidence / evaluable
--   sticky_artifact_rate         (accepted with weak evidence, or signal target_exists_only) / evaluable
--   RATE_ci_low, RATE_ci_high    the rate's 95% Wilson score interval (z = 1.96) for its k of n, hindsight's
--                                functions wilson_low(k, n) and wilson_high(k, n) (crates/hindsight-report/src/report/wilson.rs; in DuckDB
--                                the macros `hindsight views` prints):
--                                low = (k + z²/2 − z·√(k(n−k)/n + z²/4)) / (n + z²); high = 1 − the low end
--                                for n − k of n (the same number as the + form, and exactly 1 at k = n)
-- The three are never merged into one number. A rate and its interval are NULL when nothing was evaluable.
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH counts AS (
  SELECT
    eval_window,
    window_order,
    SUM(evaluable) AS evaluable_outputs,
    SUM(strict_accepted) AS strict_k,
    SUM(human_check_accepted) AS human_check_k,
    SUM(sticky_artifact) AS sticky_k
  FROM output_flags
  GROUP BY eval_window, window_order
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
  eval_window,
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
ORDER BY window_order
