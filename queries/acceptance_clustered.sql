-- acceptance_clustered: the three acceptance rates per workflow (an AIDev import: per agent), safe-output type and
-- window, each with its 95% Wilson interval and beside it a 95% interval from a cluster-robust variance, for three
-- ways outputs cluster (terms: docs/DATASET.md; the method and its references: docs/REPORT.md, "Clustered
-- intervals and weighting"). Outputs in one repository, for one person or of one run are not independent
-- trials: the Wilson interval takes them as such, and is too narrow when acceptance differs between clusters.
-- One row per group and cluster unit, `cluster_by`:
--   repository   the output's target_repo
--   developer    the person the output acted for: the run's triggering actor (safe_outputs.run_actor), else the
--                account the output was written as (safe_outputs.actor; on an AIDev import, the PR's author).
--                A run on a schedule has the workflow's bot as its actor: one cluster
--   run          run_id (an AIDev import has one run per agent: one cluster)
-- A key that is NULL is one cluster, '(unknown)'. For each rate RATE (strict_acceptance_rate,
-- human_check_acceptance_rate, sticky_artifact_rate), R its short name (strict, human_check, sticky_artifact):
--   evaluable_outputs      N, outputs whose status is not skipped or unknown: every rate's denominator, as everywhere
--   clusters               C, the clusters with an evaluable output in the group
--   RATE                   p = Y / N, Y the outputs its flag counts (output_flags), as in acceptance_by_type
--   RATE_ci_low, _ci_high  its 95% Wilson score interval, wilson_low(Y, N) and wilson_high(Y, N), as in
--                          acceptance_by_window (the same on each cluster_by)
--   R_clustered_ci_low,    p -/+ 1.96 * sqrt(V), clipped to 0..1, V the linearized (sandwich) variance of the
--   R_clustered_ci_high    ratio Y / N with the CR1 small-sample factor:
--                            V = C/(C-1) * sum over clusters c of (y_c - p * n_c)^2 / N^2,
--                          y_c the cluster's outputs the flag counts, n_c its evaluable outputs
--   R_design_effect        what the clustering does to the variance, like with like: the same sum without CR1's
--                          factor, over the variance of N independent outputs:
--                            (sum_c (y_c - p * n_c)^2 / N^2) / (p(1-p) / N);
--                          exactly 1 when each cluster holds one output, above 1 when acceptance differs between
--                          clusters (below 1 when they are more alike than chance makes them); the clustered
--                          half-width is sqrt(C/(C-1) * design effect) times that of p -/+ 1.96 * sqrt(p(1-p)/N)
-- Degenerate cases are NULL, never a guess: with one cluster (C < 2) there is no variation between clusters to
-- estimate, so the clustered interval and the design effect are NULL; at p = 0 or p = 1 every residual is 0,
-- and an interval from the variance would have no width, so they are NULL there too (read the Wilson interval);
-- with N = 0 every figure is. z = 1.96, the Wilson interval's; with few clusters (tens) the normal approximation
-- is optimistic. Every figure is rounded to 12 decimals, so both engines print the same digits.
-- Four levels: the outputs' cells (one scan), each unit's clusters with their group's totals beside them (the
-- cells repeated once per unit, not scanned three times), the sums of squares, the row.
WITH cells AS (
  SELECT
    COALESCE(o.workflow_name, '(unknown)') AS workflow_name,
    o.safe_output_type,
    o.eval_window,
    o.window_order,
    COALESCE(o.target_repo, '(unknown)') AS repository,
    COALESCE(s.run_actor, s.actor, '(unknown)') AS developer,
    o.run_id,
    SUM(o.evaluable) AS n,
    SUM(o.strict_accepted) AS y1,
    SUM(o.human_check_accepted) AS y2,
    SUM(o.sticky_artifact) AS y3
  FROM output_flags o
  LEFT JOIN safe_outputs s ON s.safe_output_id = o.safe_output_id
  GROUP BY COALESCE(o.workflow_name, '(unknown)'), o.safe_output_type, o.eval_window, o.window_order, COALESCE(o.target_repo, '(unknown)'), COALESCE(s.run_actor, s.actor, '(unknown)'), o.run_id
),
-- Each cluster's counts as DOUBLE, beside its group's totals (the same on every cluster of the group);
-- unit 1: repository, 2: developer, 3: run.
clusters AS (
  SELECT
    c.workflow_name,
    c.safe_output_type,
    c.eval_window,
    c.window_order,
    u.unit,
    CASE u.unit WHEN 1 THEN c.repository WHEN 2 THEN c.developer ELSE c.run_id END AS cluster,
    SUM(c.n) AS n,
    CAST(SUM(c.n) AS DOUBLE) AS n_c,
    CAST(SUM(c.y1) AS DOUBLE) AS y1_c,
    CAST(SUM(c.y2) AS DOUBLE) AS y2_c,
    CAST(SUM(c.y3) AS DOUBLE) AS y3_c,
    SUM(CAST(SUM(c.n) AS DOUBLE)) OVER (PARTITION BY c.workflow_name, c.safe_output_type, c.eval_window, u.unit) AS n_all,
    SUM(CAST(SUM(c.y1) AS DOUBLE)) OVER (PARTITION BY c.workflow_name, c.safe_output_type, c.eval_window, u.unit) AS y1_all,
    SUM(CAST(SUM(c.y2) AS DOUBLE)) OVER (PARTITION BY c.workflow_name, c.safe_output_type, c.eval_window, u.unit) AS y2_all,
    SUM(CAST(SUM(c.y3) AS DOUBLE)) OVER (PARTITION BY c.workflow_name, c.safe_output_type, c.eval_window, u.unit) AS y3_all
  FROM cells c
  CROSS JOIN (SELECT 1 AS unit UNION ALL SELECT 2 AS unit UNION ALL SELECT 3 AS unit) u
  GROUP BY c.workflow_name, c.safe_output_type, c.eval_window, c.window_order, u.unit, CASE u.unit WHEN 1 THEN c.repository WHEN 2 THEN c.developer ELSE c.run_id END
),
-- The sums of squared residuals, y_c - p * n_c (NULL when N = 0).
sums AS (
  SELECT
    workflow_name,
    safe_output_type,
    eval_window,
    window_order,
    unit,
    SUM(n) AS evaluable_outputs,
    SUM(CASE WHEN n > 0 THEN 1 ELSE 0 END) AS clusters,
    MAX(n_all) AS n,
    MAX(y1_all) AS k1,
    MAX(y2_all) AS k2,
    MAX(y3_all) AS k3,
    SUM((y1_c - y1_all / NULLIF(n_all, 0) * n_c) * (y1_c - y1_all / NULLIF(n_all, 0) * n_c)) AS ss1,
    SUM((y2_c - y2_all / NULLIF(n_all, 0) * n_c) * (y2_c - y2_all / NULLIF(n_all, 0) * n_c)) AS ss2,
    SUM((y3_c - y3_all / NULLIF(n_all, 0) * n_c) * (y3_c - y3_all / NULLIF(n_all, 0) * n_c)) AS ss3
  FROM clusters
  GROUP BY workflow_name, safe_output_type, eval_window, window_order, unit
)
SELECT
  workflow_name,
  safe_output_type,
  eval_window,
  CASE unit WHEN 1 THEN 'repository' WHEN 2 THEN 'developer' ELSE 'run' END AS cluster_by,
  evaluable_outputs,
  clusters,
  ROUND(k1 / NULLIF(n, 0), 12) AS strict_acceptance_rate,
  ROUND(wilson_low(k1, n), 12) AS strict_acceptance_rate_ci_low,
  ROUND(wilson_high(k1, n), 12) AS strict_acceptance_rate_ci_high,
  ROUND(CASE WHEN clusters < 2 OR k1 = 0 OR k1 = n THEN NULL WHEN k1 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss1) / n < 0.0 THEN 0.0 ELSE k1 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss1) / n END, 12) AS strict_clustered_ci_low,
  ROUND(CASE WHEN clusters < 2 OR k1 = 0 OR k1 = n THEN NULL WHEN k1 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss1) / n > 1.0 THEN 1.0 ELSE k1 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss1) / n END, 12) AS strict_clustered_ci_high,
  ROUND(CASE WHEN clusters >= 2 AND k1 > 0 AND k1 < n THEN ss1 * n / (k1 * (n - k1)) END, 12) AS strict_design_effect,
  ROUND(k2 / NULLIF(n, 0), 12) AS human_check_acceptance_rate,
  ROUND(wilson_low(k2, n), 12) AS human_check_acceptance_rate_ci_low,
  ROUND(wilson_high(k2, n), 12) AS human_check_acceptance_rate_ci_high,
  ROUND(CASE WHEN clusters < 2 OR k2 = 0 OR k2 = n THEN NULL WHEN k2 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss2) / n < 0.0 THEN 0.0 ELSE k2 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss2) / n END, 12) AS human_check_clustered_ci_low,
  ROUND(CASE WHEN clusters < 2 OR k2 = 0 OR k2 = n THEN NULL WHEN k2 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss2) / n > 1.0 THEN 1.0 ELSE k2 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss2) / n END, 12) AS human_check_clustered_ci_high,
  ROUND(CASE WHEN clusters >= 2 AND k2 > 0 AND k2 < n THEN ss2 * n / (k2 * (n - k2)) END, 12) AS human_check_design_effect,
  ROUND(k3 / NULLIF(n, 0), 12) AS sticky_artifact_rate,
  ROUND(wilson_low(k3, n), 12) AS sticky_artifact_rate_ci_low,
  ROUND(wilson_high(k3, n), 12) AS sticky_artifact_rate_ci_high,
  ROUND(CASE WHEN clusters < 2 OR k3 = 0 OR k3 = n THEN NULL WHEN k3 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss3) / n < 0.0 THEN 0.0 ELSE k3 / n - 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss3) / n END, 12) AS sticky_artifact_clustered_ci_low,
  ROUND(CASE WHEN clusters < 2 OR k3 = 0 OR k3 = n THEN NULL WHEN k3 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss3) / n > 1.0 THEN 1.0 ELSE k3 / n + 1.96 * SQRT(CAST(clusters AS DOUBLE) / CAST(clusters - 1 AS DOUBLE) * ss3) / n END, 12) AS sticky_artifact_clustered_ci_high,
  ROUND(CASE WHEN clusters >= 2 AND k3 > 0 AND k3 < n THEN ss3 * n / (k3 * (n - k3)) END, 12) AS sticky_artifact_design_effect
FROM sums
ORDER BY workflow_name, safe_output_type, window_order, unit
