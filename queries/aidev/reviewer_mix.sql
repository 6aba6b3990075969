-- aidev/reviewer_mix: who reviewed the agents' PRs, as a percent of each agent's PRs
-- (prs.csv, distinct by id), plus All_Agents pooling the agents' PRs.
-- Reviews: pr_reviews.csv rows of every state whose pr_id is in the agent's prs.csv.
-- A reviewer whose login equals the PR's author counts as human; otherwise a login ending
-- in `[bot]` or the login `Copilot` is a bot; everyone else is human.
--   only_human, only_bot, both   PRs by the kinds of their reviewers
--   none                          PRs with no review row
WITH prs AS (
  SELECT agent, id, author
  FROM (SELECT agent, id, "user" AS author, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL)
  WHERE nth = 1
),
reviews AS (
  SELECT
    p.agent,
    p.id,
    CASE
      WHEN r."user" IS NOT NULL AND p.author IS NOT NULL AND r."user" = p.author THEN 0
      WHEN ends_with(r."user", '[bot]') OR r."user" = 'Copilot' THEN 1
      ELSE 0
    END AS is_bot
  FROM prs p
  JOIN aidev_reviews r ON r.agent = p.agent AND r.pr_id = p.id
),
per_pr AS (
  SELECT
    p.agent,
    SUM(CASE WHEN r.is_bot = 0 THEN 1 ELSE 0 END) AS human,
    SUM(CASE WHEN r.is_bot = 1 THEN 1 ELSE 0 END) AS bot
  FROM prs p
  LEFT JOIN reviews r ON r.agent = p.agent AND r.id = p.id
  GROUP BY p.agent, p.id
),
kinds AS (
  SELECT
    agent,
    CASE WHEN human > 0 AND bot > 0 THEN 'both' WHEN human > 0 THEN 'only_human' WHEN bot > 0 THEN 'only_bot' ELSE 'none' END AS kind
  FROM per_pr
),
pooled AS (
  SELECT agent, kind FROM kinds
  UNION ALL
  SELECT 'All_Agents' AS agent, kind FROM kinds WHERE agent IN ('Claude_Code', 'Copilot', 'Cursor', 'Devin', 'OpenAI_Codex')
)
SELECT
  agent,
  100.0 * SUM(CASE WHEN kind = 'only_human' THEN 1 ELSE 0 END) / COUNT(*) AS only_human,
  100.0 * SUM(CASE WHEN kind = 'only_bot' THEN 1 ELSE 0 END) / COUNT(*) AS only_bot,
  100.0 * SUM(CASE WHEN kind = 'both' THEN 1 ELSE 0 END) / COUNT(*) AS both,
  100.0 * SUM(CASE WHEN kind = 'none' THEN 1 ELSE 0 END) / COUNT(*) AS none
FROM pooled
GROUP BY agent
ORDER BY CASE WHEN agent = 'All_Agents' THEN 1 ELSE 0 END, agent
