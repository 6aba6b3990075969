-- aidev/turnaround: AIDev's acceptance and turnaround table, one row per agent.
-- PR set: the agent's prs.csv (unfiltered) joined 1:1 on PR id with its
-- gpt_conventional_commits.csv (aidev_task_types); each side distinct by id (first row read).
-- Status: merged (merged_at present), else closed (state closed), else open.
-- Hours: (merged_at, else closed_at) - created_at.
--   accept_cnt, accept_rate         merged PRs, and / all labelled PRs * 100 (open PRs stay in the denominator)
--   accept_median_hours             median hours of merged PRs (mean of the two middle values for an even count)
--   reject_cnt, reject_rate, reject_median_hours   the same for closed-unmerged PRs
WITH prs AS (
  SELECT agent, id, state, created_at, closed_at, merged_at
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL)
  WHERE nth = 1
),
types AS (
  SELECT agent, id, type
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_task_types WHERE id IS NOT NULL)
  WHERE nth = 1
),
labelled AS (
  SELECT
    p.agent,
    CASE WHEN p.merged_at IS NOT NULL THEN 'merged' WHEN p.state = 'closed' THEN 'closed' ELSE 'open' END AS status,
    (EXTRACT(EPOCH FROM COALESCE(p.merged_at, p.closed_at)) - EXTRACT(EPOCH FROM p.created_at)) / 3600.0 AS hours
  FROM prs p
  JOIN types t ON t.agent = p.agent AND t.id = p.id
)
SELECT
  agent,
  SUM(CASE WHEN status = 'merged' THEN 1 ELSE 0 END) AS accept_cnt,
  100.0 * SUM(CASE WHEN status = 'merged' THEN 1 ELSE 0 END) / COUNT(*) AS accept_rate,
  median(CASE WHEN status = 'merged' THEN hours END) AS accept_median_hours,
  SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END) AS reject_cnt,
  100.0 * SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END) / COUNT(*) AS reject_rate,
  median(CASE WHEN status = 'closed' THEN hours END) AS reject_median_hours
FROM labelled
GROUP BY agent
ORDER BY agent
