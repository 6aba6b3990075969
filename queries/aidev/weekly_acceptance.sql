-- aidev/weekly_acceptance: per agent and week (Monday, UTC) the PR was opened, its PRs and the
-- share merged by capture, with the agent's trend: the least-squares slope of the weekly merge
-- rate against the week's number (each week one point), in merge rate per week. A week's PRs
-- opened close to the capture had less time to be merged: read the last weeks with that in mind.
-- PR set: aidev_pull_requests, distinct by agent and PR id (the first row read), with created_at.
--   week            the Monday (UTC) the week starts, as a date (YYYY-MM-DD)
--   prs             PRs opened that week
--   merged          of those, merged_at present
--   merge_rate      merged / prs, with its 95% Wilson interval
--   trend_per_week  the agent's slope over its weeks (the same on each of its rows); NULL with
--                   fewer than two weeks
WITH prs AS (
  SELECT agent, created_at, merged_at
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL AND created_at IS NOT NULL)
  WHERE nth = 1
),
weeks AS (
  SELECT
    agent,
    date_trunc('week', created_at) AS week,
    COUNT(*) AS prs,
    SUM(CASE WHEN merged_at IS NOT NULL THEN 1 ELSE 0 END) AS merged
  FROM prs
  GROUP BY agent, date_trunc('week', created_at)
),
rated AS (
  SELECT
    agent,
    week,
    prs,
    merged,
    CAST(merged AS DOUBLE) / prs AS merge_rate,
    CAST(date_part('epoch', week) AS DOUBLE) / 604800.0 AS week_number
  FROM weeks
)
SELECT
  agent,
  CAST(CAST(week AS DATE) AS VARCHAR) AS week,
  prs,
  merged,
  merge_rate,
  wilson_low(merged, prs) AS merge_rate_low,
  wilson_high(merged, prs) AS merge_rate_high,
  regr_slope(merge_rate, week_number) OVER (PARTITION BY agent) AS trend_per_week
FROM rated
ORDER BY agent, week
