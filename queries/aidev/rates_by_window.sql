-- aidev/rates_by_window: hindsight's three acceptance rates of each agent's PRs, per window, with their n and
-- 95% intervals (terms: docs/DATASET.md).
--   prs                          the agent's PRs
--   evaluable_prs                PRs whose status in the window is neither skipped nor unknown: the denominator of
--                                every rate below (a PR too recent for the window is unknown there)
--   strict_acceptance_rate       accepted with strong evidence / evaluable_prs
--   human_check_acceptance_rate  accepted with strong or medium evidence / evaluable_prs
--   sticky_artifact_rate         (accepted with weak evidence, or signal target_exists_only) / evaluable_prs
--   RATE_ci_low, RATE_ci_high    the 95% Wilson score interval of each of the three, as in acceptance_by_window
--   rejection_rate               rejected / evaluable_prs
-- A merge by the PR's own author counts as the agent's own act (policy own_act_counts), and a merge whose
-- merger AIDev did not record is at most medium (policy unattributed_full_strength). Unrounded.
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
WITH counts AS (
  SELECT
    workflow_name AS agent,
    eval_window,
    window_order,
    COUNT(*) AS prs,
    SUM(evaluable) AS evaluable_prs,
    SUM(strict_accepted) AS strict_k,
    SUM(human_check_accepted) AS human_check_k,
    SUM(sticky_artifact) AS sticky_k,
    SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected
  FROM output_flags
  WHERE run_id LIKE 'aidev:%'
  GROUP BY workflow_name, eval_window, window_order
),
-- The rates' terms as DOUBLE, so every engine computes them alike (the intervals take them as DOUBLE too).
w AS (
  SELECT
    *,
    CAST(evaluable_prs AS DOUBLE) AS n,
    CAST(strict_k AS DOUBLE) AS k1,
    CAST(human_check_k AS DOUBLE) AS k2,
    CAST(sticky_k AS DOUBLE) AS k3
  FROM counts
)
SELECT
  agent,
  eval_window,
  prs,
  evaluable_prs,
  k1 / NULLIF(n, 0) AS strict_acceptance_rate,
  wilson_low(k1, n) AS strict_acceptance_rate_ci_low,
  wilson_high(k1, n) AS strict_acceptance_rate_ci_high,
  k2 / NULLIF(n, 0) AS human_check_acceptance_rate,
  wilson_low(k2, n) AS human_check_acceptance_rate_ci_low,
  wilson_high(k2, n) AS human_check_acceptance_rate_ci_high,
  k3 / NULLIF(n, 0) AS sticky_artifact_rate,
  wilson_low(k3, n) AS sticky_artifact_rate_ci_low,
  wilson_high(k3, n) AS sticky_artifact_rate_ci_high,
  CAST(rejected AS DOUBLE) / NULLIF(evaluable_prs, 0) AS rejection_rate
FROM w
ORDER BY agent, window_order
