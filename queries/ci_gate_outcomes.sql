-- ci_gate_outcomes: how the replayed iterations ended, by count (seed 002's pause reasons among them).
--   gate_outcome   accepted, ci-fix-exhausted, stuck (stuck in CI fix loop), ci-timeout;
--                  ci_missing (no CI captured), ci_pending (still running at capture),
--                  red_unresolved (red, no later push captured), no_commits (PR commits not captured)
--   iterations     iterations ending so
--   accepted_while_ci_red   of them, marked accepted by the loop itself while CI was red
SELECT
  gate_outcome,
  COUNT(*) AS iterations,
  SUM(CASE WHEN accepted_while_ci_red THEN 1 ELSE 0 END) AS accepted_while_ci_red
FROM ci_gate
GROUP BY gate_outcome
ORDER BY gate_outcome
