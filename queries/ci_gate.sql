-- ci_gate: seed 002's CI gate replayed on every PR an agent output opened or pushed to (one row).
--   iterations                   replayed iterations (outputs that push code, executed)
--   with_ci                      iterations whose first push has a captured CI state
--   first_push_green             first push's CI success
--   first_push_pass_rate         first_push_green / with_ci
--   accepted                     iterations the gate accepts (CI green, within budget and time)
--   fix_attempts_per_accepted    mean fix attempts of the accepted iterations
--   paused                       ci-fix-exhausted + stuck + ci-timeout
--   accepted_while_ci_red        iterations the loop itself marked accepted while CI on that commit was red
SELECT
  COUNT(*) AS iterations,
  SUM(CASE WHEN first_push_ci IN ('success', 'failure', 'pending') THEN 1 ELSE 0 END) AS with_ci,
  SUM(CASE WHEN first_push_ci = 'success' THEN 1 ELSE 0 END) AS first_push_green,
  ROUND(CAST(SUM(CASE WHEN first_push_ci = 'success' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN first_push_ci IN ('success', 'failure', 'pending') THEN 1 ELSE 0 END), 0), 4) AS first_push_pass_rate,
  SUM(CASE WHEN gate_outcome = 'accepted' THEN 1 ELSE 0 END) AS accepted,
  ROUND(AVG(CASE WHEN gate_outcome = 'accepted' THEN CAST(fix_attempts AS DOUBLE) END), 4) AS fix_attempts_per_accepted,
  SUM(CASE WHEN paused THEN 1 ELSE 0 END) AS paused,
  SUM(CASE WHEN accepted_while_ci_red THEN 1 ELSE 0 END) AS accepted_while_ci_red
FROM ci_gate
