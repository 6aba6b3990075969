-- quality_findings: code-quality findings (tier 2) by rule and severity, over the PRs the
-- risk table assessed (an output's or a task's; a PR of both counted once, and a finding
-- of both once), then one row `(all rules)` of every finding.
--   rule, severity      the finding's rule (`duplicated_block`, `complex_function`,
--                       `naming_convention`, `repository_rule`) and severity (`error`,
--                       `warning`, `info`)
--   findings            findings of the rule at the severity
--   blocking            of them, those at or above the repository's blocking severity
--   prs                 PRs with at least one such finding (of prs_assessed)
--   prs_assessed        PRs whose files were captured: the denominator of prs
--   prs_not_captured    PRs whose files were not captured: no finding could be made, so
--                       "no finding" there means "not looked at", never "clean"
WITH prs AS (
  SELECT DISTINCT repo, pull_number, CASE WHEN risk_level IS NULL THEN 0 ELSE 1 END AS captured FROM pr_risk
),
totals AS (
  SELECT 1 AS k, COALESCE(SUM(captured), 0) AS prs_assessed, COALESCE(SUM(1 - captured), 0) AS prs_not_captured FROM prs
),
findings AS (
  SELECT DISTINCT repo, pr_number, file, line, rule, severity, blocking, message FROM quality_findings
),
-- Each finding twice: under its rule and severity, and under `(all rules)` (a join with two
-- literal rows, not a union of two aggregates: a distributed plan repeated a union's branch).
expanded AS (
  SELECT
    CASE WHEN s.whole = 1 THEN '(all rules)' ELSE f.rule END AS rule,
    CASE WHEN s.whole = 1 THEN '(any)' ELSE f.severity END AS severity,
    s.whole,
    f.repo,
    f.pr_number,
    f.blocking
  FROM findings f
  CROSS JOIN (SELECT 0 AS whole UNION ALL SELECT 1 AS whole) s
),
by_rule AS (
  SELECT
    1 AS k,
    rule,
    severity,
    whole,
    COUNT(*) AS findings,
    SUM(CASE WHEN blocking THEN 1 ELSE 0 END) AS blocking,
    COUNT(DISTINCT repo || '#' || CAST(pr_number AS VARCHAR)) AS prs
  FROM expanded
  GROUP BY rule, severity, whole
)
SELECT b.rule, b.severity, b.findings, b.blocking, b.prs, t.prs_assessed, t.prs_not_captured
FROM by_rule b
JOIN totals t ON t.k = b.k
ORDER BY
  b.whole,
  b.rule,
  CASE b.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END
