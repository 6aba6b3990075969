-- ci_gate_outcomes: how the replayed outputs ended, by count (the gate's pause reasons among them).
--   gate_outcome   accepted, ci-fix-exhausted, stuck (stuck in CI fix loop), ci-timeout;
--                  why the gate cannot say: ci_missing (no CI captured), ci_pending (still running at capture),
--                  red_unresolved (red, no fix by the loop captured), clock_unknown (a push's or a verdict's time
--                  not captured), pusher_unknown (a commit after a red push that may be a fix: its pusher unknown),
--                  push_unknown (the program push not found), no_commits (PR commits not captured);
--                  not iterations: not_an_iteration (not a push to autoloop/{program} by the loop),
--                  branch_unknown, loop_unknown
--   outputs        outputs ending so
--   accepted_while_ci_red   of them, recorded accepted by the loop itself while CI was red
--   loop_disagrees          of them, whose status in the loop's state file disagrees with the gate's
SELECT
  gate_outcome,
  COUNT(*) AS outputs,
  SUM(CASE WHEN accepted_while_ci_red THEN 1 ELSE 0 END) AS accepted_while_ci_red,
  SUM(CASE WHEN loop_check = 'disagrees' THEN 1 ELSE 0 END) AS loop_disagrees
FROM ci_gate
GROUP BY gate_outcome
ORDER BY gate_outcome
