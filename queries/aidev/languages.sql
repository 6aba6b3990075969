-- aidev/languages: the languages of the agents' repositories, one row per agent and language.
-- Repositories: repo_metadata.csv rows (every folder's, distinct by url, the first read)
-- whose url is among the agent's repo_urls in prs.csv.
--   count   repositories whose language is this one (an empty language is its own category, '')
--   pct     count / the agent's repositories with a metadata row * 100
WITH repos AS (
  SELECT DISTINCT agent, repo_url FROM aidev_pull_requests WHERE repo_url IS NOT NULL
),
meta AS (
  SELECT url, language
  FROM (
    SELECT url, language,
      ROW_NUMBER() OVER (PARTITION BY url ORDER BY CASE agent WHEN 'Claude_Code' THEN 1 WHEN 'Copilot' THEN 2 WHEN 'Cursor' THEN 3 WHEN 'Devin' THEN 4 WHEN 'OpenAI_Codex' THEN 5 ELSE 6 END, source_line) AS nth
    FROM aidev_repositories
    WHERE url IS NOT NULL
  )
  WHERE nth = 1
),
matched AS (
  SELECT r.agent, COALESCE(m.language, '') AS language
  FROM repos r
  JOIN meta m ON m.url = r.repo_url
)
SELECT
  agent,
  language,
  COUNT(*) AS count,
  100.0 * COUNT(*) / SUM(COUNT(*)) OVER (PARTITION BY agent) AS pct
FROM matched
GROUP BY agent, language
ORDER BY agent, COUNT(*) DESC, language
