-- acceptance_comparisons: each workflow (an AIDev import: agent) and safe-output type against the rest of its
-- window, as a 2x2 table of strictly accepted and not (terms: docs/DATASET.md; the tests and their references:
-- docs/REPORT.md, "Comparisons, corrected for testing many"). The cell's evaluable outputs are split into those
-- the strict rate counts (output_flags.strict_accepted) and the rest; so are the evaluable outputs of every other
-- workflow and type in the same window:
--   evaluable_outputs            the cell's outputs whose status is not skipped or unknown
--   accepted, not_accepted       of those, strictly accepted (the strict rate's numerator), and not
--   rest_accepted,               the same over the window's other cells
--   rest_not_accepted
--   strict_acceptance_rate       accepted / evaluable_outputs
--   rest_strict_acceptance_rate  rest_accepted / (rest_accepted + rest_not_accepted); NULL: no other cell
--   odds_ratio                   (accepted * rest_not_accepted) / (not_accepted * rest_accepted), the sample odds
--                                ratio; NULL where a count below the line is 0 (no finite ratio)
-- Cells without an evaluable output are left out. This query is the part every engine computes alike (DuckDB
-- gives the same rows); the dashboard section of the same name adds each row's test (Fisher's exact test on the
-- table, two-sided), its p-value and the p-values adjusted across the window's cells (Holm; Benjamini-Hochberg),
-- which are not portable SQL and are computed by hindsight's report (crates/hindsight-report, comparisons).
-- Rates and ratios are rounded to 12 decimals, so both engines print the same digits.
WITH cells AS (
  SELECT
    COALESCE(workflow_name, '(unknown)') AS workflow_name,
    safe_output_type,
    eval_window,
    window_order,
    SUM(evaluable) AS n,
    SUM(strict_accepted) AS k
  FROM output_flags
  GROUP BY COALESCE(workflow_name, '(unknown)'), safe_output_type, eval_window, window_order
),
windows AS (
  SELECT eval_window, SUM(n) AS total_n, SUM(k) AS total_k
  FROM cells
  GROUP BY eval_window
),
tables AS (
  SELECT
    c.workflow_name,
    c.safe_output_type,
    c.eval_window,
    c.window_order,
    c.n AS evaluable_outputs,
    c.k AS accepted,
    c.n - c.k AS not_accepted,
    w.total_k - c.k AS rest_accepted,
    (w.total_n - w.total_k) - (c.n - c.k) AS rest_not_accepted
  FROM cells c
  JOIN windows w ON w.eval_window = c.eval_window
  WHERE c.n > 0
)
SELECT
  workflow_name,
  safe_output_type,
  eval_window,
  evaluable_outputs,
  accepted,
  not_accepted,
  rest_accepted,
  rest_not_accepted,
  ROUND(CAST(accepted AS DOUBLE) / CAST(evaluable_outputs AS DOUBLE), 12) AS strict_acceptance_rate,
  ROUND(CAST(rest_accepted AS DOUBLE) / NULLIF(CAST(rest_accepted + rest_not_accepted AS DOUBLE), 0.0), 12) AS rest_strict_acceptance_rate,
  ROUND(CASE WHEN not_accepted > 0 AND rest_accepted > 0 THEN CAST(accepted AS DOUBLE) * CAST(rest_not_accepted AS DOUBLE) / (CAST(not_accepted AS DOUBLE) * CAST(rest_accepted AS DOUBLE)) END, 12) AS odds_ratio
FROM tables
ORDER BY workflow_name, safe_output_type, window_order
