-- aidev/task_comparisons: each agent and task type against every other agent and task type of the study, as a
-- 2x2 table of merged and not (the counts of aidev/acceptance_by_task; the tests and their references:
-- docs/REPORT.md, "Comparisons, corrected for testing many"). Task types are the release's own labels, as in
-- aidev/acceptance_by_task: a PR with several different labels counts once under each, so it sits in its
-- cell's table and, under its other labels, in the rest (multi_labelled says how many of the cell's PRs do):
--   prs                    PRs labelled with the type
--   merged, not_merged     of those, merged_at present, and not (closed unmerged, or still open at capture)
--   rest_merged,           the same summed over the study's other agent and type cells
--   rest_not_merged
--   merge_rate             merged / prs
--   rest_merge_rate        rest_merged / (rest_merged + rest_not_merged); NULL: no other cell
--   odds_ratio             (merged * rest_not_merged) / (not_merged * rest_merged); NULL where a count below the
--                          line is 0 (no finite ratio)
--   multi_labelled         PRs of the cell that carry another label as well
-- No rows on a release without task types (aidev/acceptance_by_task says which). This query is the part every
-- engine computes alike (DuckDB gives the same rows); the dashboard section of the same name adds each row's
-- test (Fisher's exact test, two-sided), its p-value and the p-values adjusted across the study's cells (Holm;
-- Benjamini-Hochberg), computed by hindsight's report. Rates and ratios are rounded to 12 decimals.
WITH prs AS (
  SELECT agent, id, merged_at
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL)
  WHERE nth = 1
),
labels AS (
  SELECT DISTINCT agent, id, type FROM aidev_task_types WHERE id IS NOT NULL AND type IS NOT NULL AND agent IS NOT NULL
),
label_counts AS (
  SELECT agent, id, COUNT(*) AS n_labels FROM labels GROUP BY agent, id
),
cells AS (
  SELECT
    p.agent,
    l.type,
    COUNT(*) AS prs,
    SUM(CASE WHEN p.merged_at IS NOT NULL THEN 1 ELSE 0 END) AS merged,
    SUM(CASE WHEN c.n_labels > 1 THEN 1 ELSE 0 END) AS multi_labelled
  FROM prs p
  JOIN labels l ON l.agent = p.agent AND l.id = p.id
  JOIN label_counts c ON c.agent = p.agent AND c.id = p.id
  GROUP BY p.agent, l.type
),
study AS (
  SELECT SUM(prs) AS total_prs, SUM(merged) AS total_merged, 1 AS k FROM cells
),
tables AS (
  SELECT
    c.agent,
    c.type,
    c.prs,
    c.merged,
    c.prs - c.merged AS not_merged,
    s.total_merged - c.merged AS rest_merged,
    (s.total_prs - s.total_merged) - (c.prs - c.merged) AS rest_not_merged,
    c.multi_labelled
  FROM (SELECT *, 1 AS k FROM cells) c
  JOIN study s ON s.k = c.k
)
SELECT
  agent,
  type,
  prs,
  merged,
  not_merged,
  rest_merged,
  rest_not_merged,
  ROUND(CAST(merged AS DOUBLE) / CAST(prs AS DOUBLE), 12) AS merge_rate,
  ROUND(CAST(rest_merged AS DOUBLE) / NULLIF(CAST(rest_merged + rest_not_merged AS DOUBLE), 0.0), 12) AS rest_merge_rate,
  ROUND(CASE WHEN not_merged > 0 AND rest_merged > 0 THEN CAST(merged AS DOUBLE) * CAST(rest_not_merged AS DOUBLE) / (CAST(not_merged AS DOUBLE) * CAST(rest_merged AS DOUBLE)) END, 12) AS odds_ratio,
  multi_labelled
FROM tables
ORDER BY agent, type
