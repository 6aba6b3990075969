-- failure_insights: what each failure would teach the prompt (with --tasks): failed tasks by
-- prompt version, failure category and the section of that version's text the failure points
-- at (prompt_section: NULL when the version's text was not given, or no section speaks of the
-- category). Each task's own insight is a row of table `insights`; `hindsight export
-- --insights FILE` writes them for a platform's memory.
--   prompt_version     the tasks' prompt version
--   failure_category   the primary failure category (uncategorized tasks have no insight)
--   prompt_section     the heading of the section the failures point at
--   tasks              failed tasks
SELECT
  prompt_version,
  failure_category,
  prompt_section,
  COUNT(*) AS tasks
FROM insights
WHERE insight_type = 'failure_summary'
GROUP BY prompt_version, failure_category, prompt_section
ORDER BY prompt_version NULLS LAST, failure_category, prompt_section NULLS LAST
