-- aidev/merge_rates: the merge rate per agent (and the human baseline, where the release has
-- it) as the follow-up studies of AIDev report it, two ways: over all PRs, open ones included
-- (as Ehsani et al. 2026, "Where Do AI Coding Agents Fail?", arXiv 2601.15195, count merged
-- among all agentic PRs of AIDev v3's AIDev-pop), and over decided PRs only (merged or closed
-- at capture), which leaves the still-open PRs out instead of counting them as not merged.
-- PR set: aidev_pull_requests, distinct by agent and PR id (the first row read).
--   prs                 PRs
--   merged              merged_at present
--   closed_unmerged     state closed and no merged_at
--   still_open          neither: open at capture
--   merge_rate_all      merged / prs
--   merge_rate_decided  merged / (merged + closed_unmerged); NULL when none is decided
--   *_low, *_high       the 95% Wilson interval of each rate
-- Rates are 0-1, unrounded.
WITH prs AS (
  SELECT agent, merged_at, state
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL)
  WHERE nth = 1
),
counts AS (
  SELECT
    agent,
    COUNT(*) AS prs,
    SUM(CASE WHEN merged_at IS NOT NULL THEN 1 ELSE 0 END) AS merged,
    SUM(CASE WHEN merged_at IS NULL AND state = 'closed' THEN 1 ELSE 0 END) AS closed_unmerged,
    SUM(CASE WHEN merged_at IS NULL AND (state IS NULL OR state <> 'closed') THEN 1 ELSE 0 END) AS still_open
  FROM prs
  GROUP BY agent
)
SELECT
  agent,
  prs,
  merged,
  closed_unmerged,
  still_open,
  CAST(merged AS DOUBLE) / prs AS merge_rate_all,
  wilson_low(merged, prs) AS merge_rate_all_low,
  wilson_high(merged, prs) AS merge_rate_all_high,
  CAST(merged AS DOUBLE) / NULLIF(merged + closed_unmerged, 0) AS merge_rate_decided,
  wilson_low(merged, merged + closed_unmerged) AS merge_rate_decided_low,
  wilson_high(merged, merged + closed_unmerged) AS merge_rate_decided_high
FROM counts
ORDER BY agent
