-- time_to_outcome: the curves of time to outcome, with outputs still open at capture censored.
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
-- One row per group and distinct time t (hours) at which an output left the risk set:
--   hours             t, hours after creation
--   n_at_risk         outputs still undecided and observed just before t (time t or later)
--   accepted_events   outputs accepted at t
--   rejected_events   outputs rejected at t
--   censored          outputs pending or ignored at capture whose follow-up ends at t
--   excluded          the group's outputs left out (unknown, skipped, or decided with no date)
--   km_not_accepted   Kaplan-Meier S(t), the share not yet accepted after t: the product over
--                     times u <= t of (1 - accepted_events / n_at_risk), rejection as censoring
--   km_lower_95       95% pointwise interval of S(t), log-log with Greenwood's variance:
--   km_upper_95       S^exp(+/-1.96 * se), se = sqrt(sum of d/(n(n-d))) / |ln S|; 1 to 1 before the first
--                     acceptance, 0 to 0 once S is 0
--   cif_accepted      Aalen-Johansen cumulative incidence of acceptance by t: the sum over u <= t
--                     of S_all(u-)  *  accepted_events / n_at_risk, S_all the KM of neither event yet
--   cif_rejected      the same for rejection
-- A product is taken as exp(sum of ln(1 - d/n)) in a window; a step with d = n makes it 0, which
-- has no logarithm, so it is counted apart.
-- Three levels of windows or grouping, each over the one before: each time and who is at risk
-- (times), the running sums (running), the incidences (curve). A deeper plan is more than a
-- cluster's scheduler decodes; and no LAG: one the planner turns around (to read rows sorted the
-- other way) reaches a cluster's executors unturned and reads the next row, so the row before is
-- a window frame's.
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
    SUM(accepted_events) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS accepted_so_far,
    SUM(ln_km) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ln_survival,
    SUM(km_zero) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS km_zeros,
    SUM(greenwood_step) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS greenwood,
    SUM(ln_all) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ln_all_before,
    SUM(all_zero) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS all_zeros_before
  FROM steps
),
curve AS (
  SELECT
    workflow_name,
    safe_output_type,
    hours,
    n_at_risk,
    accepted_events,
    rejected_events,
    censored,
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
    SUM(CASE WHEN COALESCE(all_zeros_before, 0) > 0 THEN 0.0 ELSE EXP(COALESCE(ln_all_before, 0.0)) END * CAST(rejected_events AS DOUBLE) / CAST(n_at_risk AS DOUBLE)) OVER (PARTITION BY workflow_name, safe_output_type ORDER BY hours ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cif_rejected
  FROM running
),
excluded AS (
  SELECT workflow_name, safe_output_type, SUM(CASE WHEN hours IS NULL THEN 1 ELSE 0 END) AS excluded
  FROM subjects
  GROUP BY workflow_name, safe_output_type
)
SELECT
  c.workflow_name,
  c.safe_output_type,
  c.hours,
  c.n_at_risk,
  c.accepted_events,
  c.rejected_events,
  c.censored,
  e.excluded,
  -- Rounded to 12 decimals: the engines' window sums can differ in the last bit, and the
  -- figures must be the same in DuckDB and DataFusion.
  ROUND(c.km_not_accepted, 12) AS km_not_accepted,
  ROUND(c.km_lower_95, 12) AS km_lower_95,
  ROUND(c.km_upper_95, 12) AS km_upper_95,
  ROUND(c.cif_accepted, 12) AS cif_accepted,
  ROUND(c.cif_rejected, 12) AS cif_rejected
FROM curve c
JOIN excluded e ON e.workflow_name = c.workflow_name AND e.safe_output_type = c.safe_output_type
ORDER BY c.workflow_name, c.safe_output_type, c.hours
