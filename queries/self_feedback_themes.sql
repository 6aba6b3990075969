-- self_feedback_themes: what agents said was missing, by repository (with --tasks): the agent's
-- self-feedback at the end of its tasks, and how much of it repeats what an earlier task of
-- the same repository said (the similarity of repeated review comments: docs/TASKS.md).
--   repo               the repository (NULL: tasks naming none)
--   insights           self-feedback insights
--   tasks              tasks that gave one
--   recurring          insights repeating an earlier task's (repeats_insight_id set)
--   recurring_share    recurring / insights
--   most_repeated      the insight repeated most often (earliest on a tie); NULL when none repeats
--   times_repeated     how many later insights repeat it
WITH said AS (
  SELECT insight_id, task_id, repo, timestamp, text, repeats_insight_id
  FROM insights
  WHERE insight_type = 'agent_self_feedback'
),
repeated AS (
  SELECT s.repo, s.insight_id, s.text, s.timestamp, COUNT(r.insight_id) AS times_repeated
  FROM said s
  JOIN said r ON r.repeats_insight_id = s.insight_id
  GROUP BY s.repo, s.insight_id, s.text, s.timestamp
),
ranked AS (
  SELECT repo, text, times_repeated,
    ROW_NUMBER() OVER (PARTITION BY repo ORDER BY times_repeated DESC, timestamp, insight_id) AS k
  FROM repeated
)
SELECT
  s.repo,
  COUNT(*) AS insights,
  COUNT(DISTINCT s.task_id) AS tasks,
  COUNT(s.repeats_insight_id) AS recurring,
  ROUND(CAST(COUNT(s.repeats_insight_id) AS DOUBLE) / COUNT(*), 4) AS recurring_share,
  MAX(r.text) AS most_repeated,
  MAX(r.times_repeated) AS times_repeated
FROM said s
LEFT JOIN ranked r ON (r.repo IS NOT DISTINCT FROM s.repo) AND r.k = 1
GROUP BY s.repo
ORDER BY s.repo NULLS LAST
