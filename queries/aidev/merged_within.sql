-- aidev/merged_within: hindsight's addition. Per agent, the share of its PRs merged within
-- 24 hours and within 7 days of being opened, from the evaluation windows.
--   prs              the agent's PRs (one safe output per distinct PR id of prs.csv)
--   observable       PRs whose window ended by the snapshot time (a PR opened less than the
--                    window before the data was collected cannot be judged yet)
--   merged_within    PRs merged inside the window, whoever merged them
--   merged_within_pct  merged_within / observable * 100
SELECT
  workflow_name AS agent,
  eval_window,
  COUNT(*) AS prs,
  SUM(CASE WHEN human_check_signal <> 'window_not_yet_observable' THEN 1 ELSE 0 END) AS observable,
  SUM(CASE WHEN human_check_signal IN ('pull_request_merged', 'pull_request_merged_by_workflow', 'pull_request_merged_by_requester', 'reverted_after_merge') THEN 1 ELSE 0 END) AS merged_within,
  100.0 * SUM(CASE WHEN human_check_signal IN ('pull_request_merged', 'pull_request_merged_by_workflow', 'pull_request_merged_by_requester', 'reverted_after_merge') THEN 1 ELSE 0 END)
    / NULLIF(SUM(CASE WHEN human_check_signal <> 'window_not_yet_observable' THEN 1 ELSE 0 END), 0) AS merged_within_pct
FROM outcomes
WHERE run_id LIKE 'aidev:%' AND eval_window IN ('24h', '7d')
GROUP BY workflow_name, eval_window, window_order
ORDER BY agent, window_order
