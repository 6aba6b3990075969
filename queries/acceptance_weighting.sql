-- acceptance_weighting: how much each workflow's acceptance rates (an AIDev import: each agent's) rest on a few
-- repositories or people, per window (terms: docs/DATASET.md; the method and its references: docs/REPORT.md,
-- "Clustered intervals and weighting"). A rate per output weights a repository by its outputs, so one busy
-- repository can carry it; the means of per-repository and per-developer rates weight each one alike, and the
-- rates without the busiest repositories show what is left when they are set aside.
-- Every count is of evaluable outputs (status not skipped or unknown: the rates' denominator, as everywhere);
-- repository is target_repo, developer the person the output acted for (safe_outputs.run_actor, else
-- safe_outputs.actor, as in acceptance_clustered); a NULL key is one '(unknown)'.
--   evaluable_outputs                N
--   repositories, developers         those with an evaluable output
--   top_1_repository_share           the share of the N outputs in the busiest repository,
--   top_5_repositories_share         the busiest 5, and the busiest 10: repositories ranked by their evaluable
--   top_10_repositories_share        outputs, most first, ties by name (A before B); 1 when there are no more
-- For each rate R (strict_acceptance_rate, human_check_acceptance_rate, sticky_artifact_rate; the flags of
-- output_flags, as in by_workflow):
--   R                                per output: Y / N, by_workflow's rate
--   R_repository_mean                the mean over those repositories of each one's rate y_r / n_r
--   R_developer_mean                 the mean over those developers of each one's rate
--   R_without_top_1, _top_5, _top_10 (Y - Y_top) / (N - N_top), the busiest 1, 5 or 10 repositories left out;
--                                    NULL when nothing is left
-- NULL when N = 0. Every figure is rounded to 12 decimals, so both engines print the same digits. A repository's
-- place is a running count over an ordered window frame, which travels to a cluster's executors intact.
WITH cells AS (
  SELECT
    COALESCE(o.workflow_name, '(unknown)') AS workflow_name,
    o.eval_window,
    o.window_order,
    COALESCE(o.target_repo, '(unknown)') AS repository,
    COALESCE(s.run_actor, s.actor, '(unknown)') AS developer,
    SUM(o.evaluable) AS n,
    SUM(o.strict_accepted) AS y1,
    SUM(o.human_check_accepted) AS y2,
    SUM(o.sticky_artifact) AS y3
  FROM output_flags o
  LEFT JOIN safe_outputs s ON s.safe_output_id = o.safe_output_id
  GROUP BY COALESCE(o.workflow_name, '(unknown)'), o.eval_window, o.window_order, COALESCE(o.target_repo, '(unknown)'), COALESCE(s.run_actor, s.actor, '(unknown)')
),
-- Each repository's counts and its place among the workflow's, busiest first.
repositories AS (
  SELECT
    workflow_name,
    eval_window,
    window_order,
    repository,
    SUM(n) AS n,
    SUM(y1) AS y1,
    SUM(y2) AS y2,
    SUM(y3) AS y3,
    SUM(1) OVER (PARTITION BY workflow_name, eval_window ORDER BY SUM(n) DESC, repository ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS place
  FROM cells
  GROUP BY workflow_name, eval_window, window_order, repository
),
by_repository AS (
  SELECT
    workflow_name,
    eval_window,
    window_order,
    SUM(n) AS evaluable_outputs,
    SUM(CASE WHEN n > 0 THEN 1 ELSE 0 END) AS repositories,
    CAST(SUM(n) AS DOUBLE) AS n_all,
    CAST(SUM(y1) AS DOUBLE) AS k1,
    CAST(SUM(y2) AS DOUBLE) AS k2,
    CAST(SUM(y3) AS DOUBLE) AS k3,
    AVG(CASE WHEN n > 0 THEN CAST(y1 AS DOUBLE) / CAST(n AS DOUBLE) END) AS repository_mean1,
    AVG(CASE WHEN n > 0 THEN CAST(y2 AS DOUBLE) / CAST(n AS DOUBLE) END) AS repository_mean2,
    AVG(CASE WHEN n > 0 THEN CAST(y3 AS DOUBLE) / CAST(n AS DOUBLE) END) AS repository_mean3,
    CAST(SUM(CASE WHEN place <= 1 THEN n ELSE 0 END) AS DOUBLE) AS n_top1,
    CAST(SUM(CASE WHEN place <= 5 THEN n ELSE 0 END) AS DOUBLE) AS n_top5,
    CAST(SUM(CASE WHEN place <= 10 THEN n ELSE 0 END) AS DOUBLE) AS n_top10,
    CAST(SUM(CASE WHEN place <= 1 THEN y1 ELSE 0 END) AS DOUBLE) AS y1_top1,
    CAST(SUM(CASE WHEN place <= 5 THEN y1 ELSE 0 END) AS DOUBLE) AS y1_top5,
    CAST(SUM(CASE WHEN place <= 10 THEN y1 ELSE 0 END) AS DOUBLE) AS y1_top10,
    CAST(SUM(CASE WHEN place <= 1 THEN y2 ELSE 0 END) AS DOUBLE) AS y2_top1,
    CAST(SUM(CASE WHEN place <= 5 THEN y2 ELSE 0 END) AS DOUBLE) AS y2_top5,
    CAST(SUM(CASE WHEN place <= 10 THEN y2 ELSE 0 END) AS DOUBLE) AS y2_top10,
    CAST(SUM(CASE WHEN place <= 1 THEN y3 ELSE 0 END) AS DOUBLE) AS y3_top1,
    CAST(SUM(CASE WHEN place <= 5 THEN y3 ELSE 0 END) AS DOUBLE) AS y3_top5,
    CAST(SUM(CASE WHEN place <= 10 THEN y3 ELSE 0 END) AS DOUBLE) AS y3_top10
  FROM repositories
  GROUP BY workflow_name, eval_window, window_order
),
developers AS (
  SELECT workflow_name, eval_window, developer, SUM(n) AS n, SUM(y1) AS y1, SUM(y2) AS y2, SUM(y3) AS y3
  FROM cells
  GROUP BY workflow_name, eval_window, developer
),
by_developer AS (
  SELECT
    workflow_name,
    eval_window,
    SUM(CASE WHEN n > 0 THEN 1 ELSE 0 END) AS developers,
    AVG(CASE WHEN n > 0 THEN CAST(y1 AS DOUBLE) / CAST(n AS DOUBLE) END) AS developer_mean1,
    AVG(CASE WHEN n > 0 THEN CAST(y2 AS DOUBLE) / CAST(n AS DOUBLE) END) AS developer_mean2,
    AVG(CASE WHEN n > 0 THEN CAST(y3 AS DOUBLE) / CAST(n AS DOUBLE) END) AS developer_mean3
  FROM developers
  GROUP BY workflow_name, eval_window
)
SELECT
  r.workflow_name,
  r.eval_window,
  r.evaluable_outputs,
  r.repositories,
  d.developers,
  ROUND(r.n_top1 / NULLIF(r.n_all, 0), 12) AS top_1_repository_share,
  ROUND(r.n_top5 / NULLIF(r.n_all, 0), 12) AS top_5_repositories_share,
  ROUND(r.n_top10 / NULLIF(r.n_all, 0), 12) AS top_10_repositories_share,
  ROUND(r.k1 / NULLIF(r.n_all, 0), 12) AS strict_acceptance_rate,
  ROUND(r.repository_mean1, 12) AS strict_acceptance_rate_repository_mean,
  ROUND(d.developer_mean1, 12) AS strict_acceptance_rate_developer_mean,
  ROUND((r.k1 - r.y1_top1) / NULLIF(r.n_all - r.n_top1, 0), 12) AS strict_acceptance_rate_without_top_1,
  ROUND((r.k1 - r.y1_top5) / NULLIF(r.n_all - r.n_top5, 0), 12) AS strict_acceptance_rate_without_top_5,
  ROUND((r.k1 - r.y1_top10) / NULLIF(r.n_all - r.n_top10, 0), 12) AS strict_acceptance_rate_without_top_10,
  ROUND(r.k2 / NULLIF(r.n_all, 0), 12) AS human_check_acceptance_rate,
  ROUND(r.repository_mean2, 12) AS human_check_acceptance_rate_repository_mean,
  ROUND(d.developer_mean2, 12) AS human_check_acceptance_rate_developer_mean,
  ROUND((r.k2 - r.y2_top1) / NULLIF(r.n_all - r.n_top1, 0), 12) AS human_check_acceptance_rate_without_top_1,
  ROUND((r.k2 - r.y2_top5) / NULLIF(r.n_all - r.n_top5, 0), 12) AS human_check_acceptance_rate_without_top_5,
  ROUND((r.k2 - r.y2_top10) / NULLIF(r.n_all - r.n_top10, 0), 12) AS human_check_acceptance_rate_without_top_10,
  ROUND(r.k3 / NULLIF(r.n_all, 0), 12) AS sticky_artifact_rate,
  ROUND(r.repository_mean3, 12) AS sticky_artifact_rate_repository_mean,
  ROUND(d.developer_mean3, 12) AS sticky_artifact_rate_developer_mean,
  ROUND((r.k3 - r.y3_top1) / NULLIF(r.n_all - r.n_top1, 0), 12) AS sticky_artifact_rate_without_top_1,
  ROUND((r.k3 - r.y3_top5) / NULLIF(r.n_all - r.n_top5, 0), 12) AS sticky_artifact_rate_without_top_5,
  ROUND((r.k3 - r.y3_top10) / NULLIF(r.n_all - r.n_top10, 0), 12) AS sticky_artifact_rate_without_top_10
FROM by_repository r
JOIN by_developer d ON d.workflow_name = r.workflow_name AND d.eval_window = r.eval_window
ORDER BY r.workflow_name, r.window_order
