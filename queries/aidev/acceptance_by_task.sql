-- aidev/acceptance_by_task: merge rate per agent and task type, as the follow-up studies of
-- AIDev report it (Ehsani et al. 2026, "Where Do AI Coding Agents Fail?", arXiv 2601.15195:
-- merge outcomes across task types of AIDev v3's AIDev-pop). Task types are the release's own
-- labels: `pr_task_type` (v3, v5) or `gpt_conventional_commits.csv` (v1), inner-joined to the
-- PRs on agent and PR id; the human baseline's (`human_pr_task_type`, v3) where present.
-- A PR with several different labels counts once under each (as a per-label tally does), and
-- is reported: multi_labelled says how many of the cell's PRs carry another label too. An
-- exact repeat of a PR's label counts once.
--   prs                PRs labelled with the type
--   merged             of those, merged_at present
--   still_open         of those, neither merged nor closed at capture
--   merge_rate_all     merged / prs, with its 95% Wilson interval (_low, _high)
--   merge_rate_decided merged / (prs - still_open)
--   multi_labelled     PRs of the cell that carry another label as well
--   missing            NULL; on a release without task types, the one row says so
-- Rates are 0-1, unrounded.
WITH prs AS (
  SELECT agent, id, merged_at, state
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
    SUM(CASE WHEN p.merged_at IS NULL AND (p.state IS NULL OR p.state <> 'closed') THEN 1 ELSE 0 END) AS still_open,
    SUM(CASE WHEN c.n_labels > 1 THEN 1 ELSE 0 END) AS multi_labelled
  FROM prs p
  JOIN labels l ON l.agent = p.agent AND l.id = p.id
  JOIN label_counts c ON c.agent = p.agent AND c.id = p.id
  GROUP BY p.agent, l.type
),
status AS (
  SELECT release, present, 1 AS k FROM source_tables WHERE table_name = 'aidev_task_types'
)
SELECT
  c.agent,
  c.type,
  c.prs,
  c.merged,
  c.still_open,
  CAST(c.merged AS DOUBLE) / c.prs AS merge_rate_all,
  wilson_low(c.merged, c.prs) AS merge_rate_all_low,
  wilson_high(c.merged, c.prs) AS merge_rate_all_high,
  CAST(c.merged AS DOUBLE) / NULLIF(c.prs - c.still_open, 0) AS merge_rate_decided,
  c.multi_labelled,
  CASE WHEN s.present THEN NULL
    ELSE 'aidev_task_types: this ' || s.release || ' copy has no task-type table (v1 gpt_conventional_commits.csv, v3 and v5 pr_task_type; v4 publishes none)' END AS missing
FROM status s
LEFT JOIN (SELECT *, 1 AS k FROM cells) c ON c.k = s.k AND s.present
WHERE NOT s.present OR c.agent IS NOT NULL
ORDER BY c.agent, c.type
