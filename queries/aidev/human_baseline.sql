-- aidev/human_baseline: each agent's PRs beside the human baseline's, where the release has
-- human PRs (v1's Human folder; v3's human_pull_request), as the follow-up studies of AIDev
-- compare agentic and human PRs (Yoshioka et al. 2026, "Let's Make Every Pull Request
-- Meaningful", arXiv 2601.18749, on AIDev's agentic and human PRs). v4 and v5 publish no
-- human PRs: there the one row says so rather than compare with nothing.
-- PR set: aidev_pull_requests, distinct by agent and PR id (the first row read).
--   prs, merge_rate_decided              the agent's PRs and merged / (merged + closed unmerged)
--   human_prs, human_merge_rate_decided  the same for the human baseline
--   difference                           merge_rate_decided - human_merge_rate_decided
--   missing                              NULL; without human PRs, the one row says so
WITH prs AS (
  SELECT agent, merged_at, state
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL)
  WHERE nth = 1
),
rates AS (
  SELECT
    agent,
    COUNT(*) AS prs,
    CAST(SUM(CASE WHEN merged_at IS NOT NULL THEN 1 ELSE 0 END) AS DOUBLE)
      / NULLIF(SUM(CASE WHEN merged_at IS NOT NULL OR state = 'closed' THEN 1 ELSE 0 END), 0) AS merge_rate_decided
  FROM prs
  GROUP BY agent
),
status AS (
  -- One row: whether the copy has human PRs (and so a baseline to compare with).
  SELECT MAX(release) AS release, (SELECT COUNT(*) FROM rates WHERE agent = 'Human') > 0 AS present, 1 AS k
  FROM source_tables
),
compared AS (
  SELECT r.agent, r.prs, r.merge_rate_decided, h.prs AS human_prs, h.merge_rate_decided AS human_merge_rate_decided, 1 AS k
  FROM rates r
  JOIN (SELECT prs, merge_rate_decided, 1 AS k FROM rates WHERE agent = 'Human') h ON h.k = 1
  WHERE r.agent <> 'Human'
)
SELECT
  c.agent,
  c.prs,
  c.merge_rate_decided,
  c.human_prs,
  c.human_merge_rate_decided,
  c.merge_rate_decided - c.human_merge_rate_decided AS difference,
  CASE WHEN s.present THEN NULL
    ELSE 'aidev_pull_requests: this ' || s.release || ' copy has no human PRs (v1 Human/prs.csv, v3 human_pull_request; v4 and v5 publish none)' END AS missing
FROM status s
LEFT JOIN compared c ON c.k = s.k AND s.present
WHERE NOT s.present OR c.agent IS NOT NULL
ORDER BY c.agent
