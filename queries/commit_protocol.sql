-- commit_protocol: the commit protocol's evaluation and commit protocol (`hindsight gate --dataset`), by terminal state.
--   terminal_state     success, rejected, failed, timeout, governance_violation, environment_invalid, commit_error
--   results            execution results ending so
--   commits_performed  of them, commits the protocol lets stand
--   violations         their violations, all kinds
SELECT
  terminal_state,
  COUNT(*) AS results,
  SUM(CASE WHEN commit_performed THEN 1 ELSE 0 END) AS commits_performed,
  SUM(violation_count) AS violations
FROM commit_protocol
GROUP BY terminal_state
ORDER BY terminal_state
