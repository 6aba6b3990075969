-- aidev/merged_by: hindsight's addition. Per agent, who merged its merged PRs (snapshot
-- window; the merger is the actor of the timeline's `merged` event).
--   merged                 PRs merged by the snapshot time
--   by_visible_non_bot     merged by a visible non-bot account other than the PR's author
--   by_author              merged by the PR's own author: the agent's own account, or the
--                          person whose account it opened the PR under (the requester)
--   by_bot                 merged by a bot account
--   by_unknown             merger not recorded (no pr_timelines.csv, or no `merged` event)
--   by_other               merged by GitHub itself, or reverted after the merge
--   visible_non_bot_pct, bot_pct   by_visible_non_bot and by_bot / merged * 100
WITH merged AS (
  SELECT
    workflow_name AS agent,
    CASE
      WHEN strpos(details, '"merged_by_type":"visible_non_bot_actor"') > 0 THEN 'visible_non_bot'
      WHEN strpos(details, '"merged_by_type":"same_workflow_actor"') > 0 THEN 'author'
      WHEN strpos(details, '"merged_by_type":"requester_actor"') > 0 THEN 'author'
      WHEN strpos(details, '"merged_by_type":"bot_actor"') > 0 THEN 'bot'
      WHEN strpos(details, '"merged_by_type":"unknown_actor"') > 0 THEN 'unknown'
      ELSE 'other'
    END AS merger
  FROM outcomes
  WHERE run_id LIKE 'aidev:%'
    AND eval_window = 'snapshot'
    AND human_check_signal IN ('pull_request_merged', 'pull_request_merged_by_workflow', 'pull_request_merged_by_requester', 'reverted_after_merge')
)
SELECT
  agent,
  COUNT(*) AS merged,
  SUM(CASE WHEN merger = 'visible_non_bot' THEN 1 ELSE 0 END) AS by_visible_non_bot,
  SUM(CASE WHEN merger = 'author' THEN 1 ELSE 0 END) AS by_author,
  SUM(CASE WHEN merger = 'bot' THEN 1 ELSE 0 END) AS by_bot,
  SUM(CASE WHEN merger = 'unknown' THEN 1 ELSE 0 END) AS by_unknown,
  SUM(CASE WHEN merger = 'other' THEN 1 ELSE 0 END) AS by_other,
  100.0 * SUM(CASE WHEN merger = 'visible_non_bot' THEN 1 ELSE 0 END) / COUNT(*) AS visible_non_bot_pct,
  100.0 * SUM(CASE WHEN merger = 'bot' THEN 1 ELSE 0 END) / COUNT(*) AS bot_pct
FROM merged
GROUP BY agent
ORDER BY agent
