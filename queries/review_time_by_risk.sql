-- review_time_by_risk: "do risky PRs take longer to review?": the time to first review per PR
-- risk level, over every agent PR with a risk row (an output's or a task's; a PR of both
-- counted once) that the snapshot has. Time to first review: hours from the PR's opening to
-- its first review by a reviewer (pr_feedback.hours_to_first_review; docs/TASKS.md).
--   risk_level                     low, medium, high, critical; '(unknown)' when the files were not captured
--   prs                            PRs at that level
--   prs_reviewed                   of them, reviewed by capture: the n of the two figures below
--   prs_unreviewed                 reviews captured and none by a reviewer yet: not yet reviewed,
--                                  left out of the figures (their time is not known yet)
--   median_hours_to_first_review   median over prs_reviewed
--   mean_hours_to_first_review     mean over prs_reviewed
-- The rest (prs - prs_reviewed - prs_unreviewed) had no reviews captured.
WITH prs AS (
  SELECT DISTINCT repo, pull_number, risk_level FROM pr_risk
)
SELECT
  COALESCE(r.risk_level, '(unknown)') AS risk_level,
  COUNT(*) AS prs,
  SUM(CASE WHEN p.hours_to_first_review IS NOT NULL THEN 1 ELSE 0 END) AS prs_reviewed,
  SUM(CASE WHEN p.first_review_at IS NULL AND (p.missing IS NULL OR (',' || p.missing || ',') NOT LIKE '%,reviews,%') THEN 1 ELSE 0 END) AS prs_unreviewed,
  ROUND(MEDIAN(p.hours_to_first_review), 3) AS median_hours_to_first_review,
  ROUND(AVG(p.hours_to_first_review), 3) AS mean_hours_to_first_review
FROM prs r
JOIN pr_feedback p ON p.repo = r.repo AND p.number = r.pull_number
GROUP BY COALESCE(r.risk_level, '(unknown)')
ORDER BY CASE COALESCE(r.risk_level, '(unknown)') WHEN 'low' THEN 1 WHEN 'medium' THEN 2 WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 5 END
