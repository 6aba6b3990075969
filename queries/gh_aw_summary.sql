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
    / NULLIF(SUM(CASE WHEN outcome_status IN ('accepted', 'rejected', 'ignored', 'pending') THEN 1 ELSE 0 END), 0), 4) AS ignore_rate
FROM outcomes
GROUP BY eval_window, window_order
ORDER BY window_order
