-- failure_categories: the evaluation pipeline's primary failure category of each failed, cancelled or timed-out task (with --tasks).
--   failure_category   running_out_of_time, tool_or_environment_failure, missing_testing_or_verification,
--                      failure_to_follow_instructions, reasoning_error, uncategorized (no rule decided)
--   tasks              tasks in it
--   share              tasks / all categorized tasks
SELECT
  failure_category,
  COUNT(*) AS tasks,
  ROUND(CAST(COUNT(*) AS DOUBLE) / SUM(COUNT(*)) OVER (), 4) AS share
FROM task_failures
GROUP BY failure_category
ORDER BY failure_category
