-- ci_gate: the CI gate replay over the outputs that opened or pushed to a PR (one row).
--   outputs                      outputs that opened or pushed to a PR (executed)
--   iterations                   of them, autoloop iterations: a program push to autoloop/{program} by the loop
--   iteration_unknown            of them, whether it is an iteration is unknown (branch_unknown, loop_unknown)
--   with_ci                      iterations whose program push has a captured CI state
--   first_push_green             program push's CI success
--   first_push_pass_rate         first_push_green / with_ci
--   accepted                     iterations the gate accepts (CI green, within budget and time)
--   fix_attempts_per_accepted    mean fix attempts (the loop's own pushes after the program push) of the accepted iterations
--   paused                       ci-fix-exhausted + stuck + ci-timeout
--   accepted_while_ci_red        iterations the loop itself recorded accepted while CI on that commit was red
--   loop_disagrees               iterations whose status in the loop's state file disagrees with the gate's
SELECT
  COUNT(*) AS outputs,
  SUM(CASE WHEN iteration THEN 1 ELSE 0 END) AS iterations,
  SUM(CASE WHEN iteration IS NULL THEN 1 ELSE 0 END) AS iteration_unknown,
  SUM(CASE WHEN iteration AND first_push_ci IN ('success', 'failure', 'pending') THEN 1 ELSE 0 END) AS with_ci,
  SUM(CASE WHEN iteration AND first_push_ci = 'success' THEN 1 ELSE 0 END) AS first_push_green,
  ROUND(CAST(SUM(CASE WHEN iteration AND first_push_ci = 'success' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN iteration AND first_push_ci IN ('success', 'failure', 'pending') THEN 1 ELSE 0 END), 0), 4) AS first_push_pass_rate,
  SUM(CASE WHEN iteration AND gate_outcome = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  ROUND(AVG(CASE WHEN iteration AND gate_outcome = 'accepted' THEN CAST(fix_attempts AS DOUBLE) END), 4) AS fix_attempts_per_accepted,
  SUM(CASE WHEN iteration AND paused THEN 1 ELSE 0 END) AS paused,
  SUM(CASE WHEN accepted_while_ci_red THEN 1 ELSE 0 END) AS accepted_while_ci_red,
  SUM(CASE WHEN loop_check = 'disagrees' THEN 1 ELSE 0 END) AS loop_disagrees
FROM ci_gate
