-- gh_aw_summary: the summary gh-aw's own reports give, under gh-aw's names, for comparison. These mix
-- evidence strengths (gh-aw's evaluator does not separate them); use acceptance_by_window for research.
-- Each rate has its own denominator, shown beside it (its n):
--   decided          accepted + rejected: outputs with a decision either way
--   acceptance_rate  accepted / decided
--   ended            accepted + rejected + ignored: outputs with an end state
--   waste_rate       (rejected + ignored) / ended: of the outputs with an end state, those that produced nothing kept
--   judged           accepted + rejected + ignored + pending: outputs judged
--   ignore_rate      ignored / judged: of the outputs judged, those nobody responded to
-- skipped and unknown outputs are in no denominator.
-- The figures gh-aw's evaluator added (actions/setup/js/evaluate_outcomes.cjs and
-- outcome_action_evaluators.cjs in github/gh-aw), from facts the rules record in `details`:
--   lifecycle_close        outputs whose target a bot closed: create_issue closed as not planned, or
--                          close_issue / close_pull_request still closed (not merged), the latest close
--                          by an automation account (details closed_by_bot); gh-aw's summary `lifecycle`
--   accepted               accepted outputs, any strength (the n of zero_touch_rate)
--   zero_touch             accepted create_pull_request outputs whose comments, reviews and commits were all
--                          captured and none after the action came from a non-bot account (commits: other
--                          than the PR's author) (details zero_touch)
--   zero_touch_rate        zero_touch / accepted
--   resolutions            outputs with a positive time to resolution: create_issue closed as completed or
--                          not planned, create_pull_request merged or closed (details resolution_sec)
--   median_resolution_sec  their median, in whole seconds (two middle values: their mean, rounded)
-- `details` is canonical JSON (keys sorted, no spaces): the facts are read with string functions, so the
-- query runs unchanged where no JSON functions are (datafusion-cli, DuckDB).
WITH o AS (
  SELECT
    eval_window,
    window_order,
    outcome_status,
    safe_output_type,
    strpos(details, '"closed_by_bot":true') > 0 AS closed_by_bot,
    strpos(details, '"state_reason":"not_planned"') > 0 AS not_planned,
    strpos(details, '"zero_touch":true') > 0 AS zero_touch,
    CAST(NULLIF(split_part(split_part(split_part(details, '"resolution_sec":', 2), ',', 1), '}', 1), '') AS BIGINT) AS resolution_sec
  FROM outcomes
)
SELECT
  eval_window,
  SUM(CASE WHEN outcome_status IN ('accepted', 'rejected') THEN 1 ELSE 0 END) AS decided,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status IN ('accepted', 'rejected') THEN 1 ELSE 0 END), 0), 4) AS acceptance_rate,
  SUM(CASE WHEN outcome_status IN ('accepted', 'rejected', 'ignored') THEN 1 ELSE 0 END) AS ended,
  ROUND(CAST(SUM(CASE WHEN outcome_status IN ('rejected', 'ignored') THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status IN ('accepted', 'rejected', 'ignored') THEN 1 ELSE 0 END), 0), 4) AS waste_rate,
  SUM(CASE WHEN outcome_status IN ('accepted', 'rejected', 'ignored', 'pending') THEN 1 ELSE 0 END) AS judged,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'ignored' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status IN ('accepted', 'rejected', 'ignored', 'pending') THEN 1 ELSE 0 END), 0), 4) AS ignore_rate,
  SUM(CASE WHEN closed_by_bot AND (safe_output_type IN ('close_issue', 'close_pull_request')
    OR (safe_output_type = 'create_issue' AND not_planned)) THEN 1 ELSE 0 END) AS lifecycle_close,
  SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  SUM(CASE WHEN outcome_status = 'accepted' AND zero_touch THEN 1 ELSE 0 END) AS zero_touch,
  ROUND(CAST(SUM(CASE WHEN outcome_status = 'accepted' AND zero_touch THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome_status = 'accepted' THEN 1 ELSE 0 END), 0), 4) AS zero_touch_rate,
  SUM(CASE WHEN resolution_sec > 0 THEN 1 ELSE 0 END) AS resolutions,
  CAST(ROUND(MEDIAN(CASE WHEN resolution_sec > 0 THEN CAST(resolution_sec AS DOUBLE) END)) AS BIGINT) AS median_resolution_sec
FROM o
GROUP BY eval_window, window_order
ORDER BY window_order
