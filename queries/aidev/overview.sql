-- aidev/overview: AIDev's overview table (Li, Zhang and Hassan 2025), one row per agent.
-- PR set: the agent's prs.csv; for Claude_Code only PRs whose body contains
-- `Co-Authored-By: Claude` (any case), for Copilot only PRs whose author login is `copilot`
-- (any case); then distinct by PR id (the first row read).
--   prs          PRs in the set
--   pct_open     state open / prs * 100
--   pct_closed   state closed and no merged_at / prs * 100
--   pct_merged   merged_at present (state not consulted) / prs * 100
--   developers   distinct authors; repos: distinct repo_url
-- Unrounded: the paper's printed precision is the reader's business.
WITH filtered AS (
  SELECT agent, id, "user" AS author, state, merged_at, repo_url, source_line
  FROM aidev_pull_requests
  WHERE (agent <> 'Claude_Code' OR strpos(lower(body), 'co-authored-by: claude') > 0)
    AND (agent <> 'Copilot' OR lower("user") = 'copilot')
),
prs AS (
  SELECT agent, id, author, state, merged_at, repo_url
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM filtered)
  WHERE nth = 1
)
SELECT
  agent,
  COUNT(*) AS prs,
  100.0 * SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END) / COUNT(*) AS pct_open,
  100.0 * SUM(CASE WHEN state = 'closed' AND merged_at IS NULL THEN 1 ELSE 0 END) / COUNT(*) AS pct_closed,
  100.0 * SUM(CASE WHEN merged_at IS NOT NULL THEN 1 ELSE 0 END) / COUNT(*) AS pct_merged,
  COUNT(DISTINCT author) AS developers,
  COUNT(DISTINCT repo_url) AS repos
FROM prs
GROUP BY agent
ORDER BY agent
