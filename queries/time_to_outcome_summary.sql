-- time_to_outcome_summary: median and restricted mean time to acceptance, outputs still open censored.
-- Who is on the curve (terms: docs/DATASET.md; the method: docs/REPORT.md, "Time to outcome, with
-- censoring"), in the snapshot window, per workflow (an AIDev import: per agent) and safe-output type:
--   an output accepted or rejected leaves at time_to_outcome_hours, the hours from its creation to
--   the deciding event; one pending or ignored at capture is censored at its follow-up, the hours
--   from created_at to evaluated_at (the capture time). Still open is not a failure: it is counted at
--   risk up to capture and no further. Unknown and skipped outputs, and decisions without a dated
--   event, are left out and counted (`excluded`).
-- Time to acceptance (Kaplan-Meier): a rejection ends the wait for acceptance without one, so there
-- it counts as censoring. The competing risks (Aalen-Johansen): acceptance and rejection are both
-- events, and each one's cumulative incidence is the share ended by it so far; they never add to
-- more than 1, where 1 - KM may.
-- One row per group (the curve itself: queries/time_to_outcome.sql):
--   outputs                      the group's outputs in the snapshot window
--   accepted, rejected           outputs decided so, with a dated event: the curve's events
--   censored                     outputs pending or ignored at capture: censored at their follow-up
--   excluded                     unknown, skipped, or decided with no date: not on the curve
--   median_hours                 median time to acceptance: the first t with S(t) <= 0.5; NULL when
--                                S never reaches 0.5 (not reached: under half were accepted by the
--                                end of follow-up)
--   median_lower_95              its 95% interval (Brookmeyer-Crowley): the first t where the lower
--   median_upper_95              and the upper log-log band reach 0.5; NULL: not reached
--   tau_hours                    tau, the group's longest time on the curve (event or follow-up)
--   rmst_hours                   restricted mean time to acceptance up to tau: the area under S
--                                from 0 to tau; an output not accepted by tau counts tau
--   rmst_lower_95, rmst_upper_95 rmst +/- 1.96 * sqrt(var), var the sum over acceptance times t of
--                                (area under S from t to tau)^2  *  d/(n(n-d)); clipped to [0, tau]
--   cif_accepted_at_tau          Aalen-Johansen cumulative incidence of acceptance by tau
--   cif_rejected_at_tau          and of rejection
--   naive_median_accepted_hours  the median over the accepted outputs alone, beside it to show its
--                                bias: it leaves out every output still open, so it runs short
-- Four levels of windows or grouping, each over the one before: each time and who is at risk
-- (times), the running sums (running), the incidences and areas (curve), the group's row (fitted).
-- A deeper plan is more than a cluster's scheduler decodes; and no LAG: one the planner turns
-- around (to read rows sorted the other way) reaches a cluster's executors unturned and reads
-- the next row, so the row before is a window frame's.
WITH subjects AS (
  -- Each output's time on the curve and how it left the risk set; NULL hours: excluded.
  SELECT
    COALESCE(workflow_name, '(unknown)') AS workflow_name,
    COALESCE(safe_output_type, '(unknown)') AS safe_output_type,
    outcome_status,
    CASE
      WHEN outcome_status IN ('accepted', 'rejected') THEN time_to_outcome_hours
      WHEN outcome_status IN ('pending', 'ignored') THEN (EXTRACT(EPOCH FROM evaluated_at) - EXTRACT(EPOCH FROM created_at)) / 3600.0
    END AS hours
  FROM outcomes
  WHERE eval_window = 'snapshot'
),
-- Each time's events; at risk at t: every output whose time is t or later (one censored at t is
-- still at risk at t), a running count from the last time back.
times AS (
  SELECT
    workflow_name,
    safe_output_type,
    hours,
    SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END) AS accepted_events,
    SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected_events,
    SUM(CASE WHEN outcome_status IN ('pending', 'ignored') THEN 1 ELSE 0 END) AS censored,
    SUM(COUNT(*)) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n_at_risk
  FROM subjects
  WHERE hours IS NOT NULL
  GROUP BY workflow_name, safe_output_type, hours
),
-- Each time's factor of a product, as a logarithm so a window sum multiplies; a factor of 0
-- (every output at risk left by the event) has no logarithm and is counted apart.
steps AS (
  SELECT
    workflow_name,
    safe_output_type,
    hours,
    accepted_events,
    rejected_events,
    censored,
    n_at_risk,
    CASE WHEN accepted_events < n_at_risk THEN LN(1.0 - CAST(accepted_events AS DOUBLE) / CAST(n_at_risk AS DOUBLE)) ELSE 0.0 END AS ln_km,
    CASE WHEN accepted_events = n_at_risk THEN 1 ELSE 0 END AS km_zero,
    CASE WHEN accepted_events < n_at_risk THEN CAST(accepted_events AS DOUBLE) / (CAST(n_at_risk AS DOUBLE) * CAST(n_at_risk - accepted_events AS DOUBLE)) ELSE 0.0 END AS greenwood_step,
    CASE WHEN accepted_events + rejected_events < n_at_risk THEN LN(1.0 - CAST(accepted_events + rejected_events AS DOUBLE) / CAST(n_at_risk AS DOUBLE)) ELSE 0.0 END AS ln_all,
    CASE WHEN accepted_events + rejected_events = n_at_risk THEN 1 ELSE 0 END AS all_zero
  FROM times
),
-- The running sums through t, and through the time before t (the frame ending a row earlier:
-- the previous row's sum, the same terms added in the same order; NULL on the first row).
running AS (
  SELECT
    workflow_name,
    safe_output_type,
    hours,
    accepted_events,
    rejected_events,
    censored,
    n_at_risk,
    greenwood_step,
    SUM(accepted_events) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS accepted_so_far,
    SUM(ln_km) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ln_survival,
    SUM(km_zero) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS km_zeros,
    SUM(greenwood_step) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS greenwood,
    SUM(ln_km) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ln_survival_before,
    SUM(km_zero) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS km_zeros_before,
    SUM(ln_all) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ln_all_before,
    SUM(all_zero) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS all_zeros_before,
    -- The time before t (NULL on the first row).
    MAX(hours) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) AS hours_before
  FROM steps
),
curve AS (
  SELECT
    workflow_name,
    safe_output_type,
    hours,
    accepted_events,
    rejected_events,
    censored,
    greenwood_step,
    CASE WHEN km_zeros > 0 THEN 0.0 ELSE EXP(ln_survival) END AS km_not_accepted,
    -- The log-log band: S^exp(+/-1.96 se), se = sqrt(Greenwood sum) / |ln S|.
    CASE
      WHEN km_zeros > 0 THEN 0.0
      WHEN accepted_so_far = 0 THEN 1.0
      ELSE EXP(ln_survival * EXP(1.959963984540054 * SQRT(greenwood) / (0.0 - ln_survival)))
    END AS km_lower_95,
    CASE
      WHEN km_zeros > 0 THEN 0.0
      WHEN accepted_so_far = 0 THEN 1.0
      ELSE EXP(ln_survival * EXP(-1.959963984540054 * SQRT(greenwood) / (0.0 - ln_survival)))
    END AS km_upper_95,
    -- Aalen-Johansen: each time's events weighted by the overall survival just before t (no
    -- event of either kind yet).
    SUM(CASE WHEN COALESCE(all_zeros_before, 0) > 0 THEN 0.0 ELSE EXP(COALESCE(ln_all_before, 0.0)) END * CAST(accepted_events AS DOUBLE) / CAST(n_at_risk AS DOUBLE)) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cif_accepted,
    SUM(CASE WHEN COALESCE(all_zeros_before, 0) > 0 THEN 0.0 ELSE EXP(COALESCE(ln_all_before, 0.0)) END * CAST(rejected_events AS DOUBLE) / CAST(n_at_risk AS DOUBLE)) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cif_rejected,
    -- The area under S up to each time, a step at a time: S holds its value from one time to
    -- the next, S before the first time 1.
    SUM(
      CASE WHEN km_zeros_before IS NULL THEN 1.0 WHEN km_zeros_before > 0 THEN 0.0 ELSE EXP(ln_survival_before) END
        * (hours - COALESCE(hours_before, 0.0))
    ) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS area_so_far,
    SUM(
      CASE WHEN km_zeros_before IS NULL THEN 1.0 WHEN km_zeros_before > 0 THEN 0.0 ELSE EXP(ln_survival_before) END
        * (hours - COALESCE(hours_before, 0.0))
    ) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rmst
  FROM running
),
fitted AS (
  SELECT
    workflow_name,
    safe_output_type,
    SUM(accepted_events) AS accepted,
    SUM(rejected_events) AS rejected,
    SUM(censored) AS censored,
    -- 1e-12: a product taken as exp(sum of logs) can land a hair above an exact 0.5.
    MIN(CASE WHEN km_not_accepted <= 0.5 + 1e-12 THEN hours END) AS median_hours,
    MIN(CASE WHEN km_lower_95 <= 0.5 + 1e-12 THEN hours END) AS median_lower_95,
    MIN(CASE WHEN km_upper_95 <= 0.5 + 1e-12 THEN hours END) AS median_upper_95,
    MAX(hours) AS tau_hours,
    MAX(rmst) AS rmst_hours,
    -- Greenwood-type variance of the area: each acceptance time's step weighted by the area still ahead of it.
    SUM((rmst - area_so_far) * (rmst - area_so_far) * greenwood_step) AS rmst_variance,
    MAX(cif_accepted) AS cif_accepted_at_tau,
    MAX(cif_rejected) AS cif_rejected_at_tau
  FROM curve
  GROUP BY workflow_name, safe_output_type
),
counts AS (
  SELECT
    workflow_name,
    safe_output_type,
    COUNT(*) AS outputs,
    SUM(CASE WHEN hours IS NULL THEN 1 ELSE 0 END) AS excluded,
    MEDIAN(CASE WHEN outcome_status = 'accepted' THEN hours END) AS naive_median_accepted_hours
  FROM subjects
  GROUP BY workflow_name, safe_output_type
)
SELECT
  n.workflow_name,
  n.safe_output_type,
  n.outputs,
  COALESCE(f.accepted, 0) AS accepted,
  COALESCE(f.rejected, 0) AS rejected,
  COALESCE(f.censored, 0) AS censored,
  n.excluded,
  f.median_hours,
  f.median_lower_95,
  f.median_upper_95,
  f.tau_hours,
  -- Rounded (hours to 9 decimals, shares to 12): the engines' window sums can differ in the
  -- last bit, and the figures must be the same in DuckDB and DataFusion.
  ROUND(f.rmst_hours, 9) AS rmst_hours,
  -- Clipped to [0, tau], where the area lies.
  ROUND(CASE WHEN f.rmst_hours - 1.959963984540054 * SQRT(f.rmst_variance) < 0.0 THEN 0.0 ELSE f.rmst_hours - 1.959963984540054 * SQRT(f.rmst_variance) END, 9) AS rmst_lower_95,
  ROUND(CASE WHEN f.rmst_hours + 1.959963984540054 * SQRT(f.rmst_variance) > f.tau_hours THEN f.tau_hours ELSE f.rmst_hours + 1.959963984540054 * SQRT(f.rmst_variance) END, 9) AS rmst_upper_95,
  ROUND(f.cif_accepted_at_tau, 12) AS cif_accepted_at_tau,
  ROUND(f.cif_rejected_at_tau, 12) AS cif_rejected_at_tau,
  n.naive_median_accepted_hours
FROM counts n
LEFT JOIN fitted f ON f.workflow_name = n.workflow_name AND f.safe_output_type = n.safe_output_type
ORDER BY n.workflow_name, n.safe_output_type
