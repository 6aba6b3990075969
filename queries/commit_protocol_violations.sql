-- commit_protocol_violations: the commit protocol's violations by kind (`hindsight gate --dataset`).
--   kind        the violation (file_outside_scope, protected_file_changed, commit_message_invalid, ...; docs/GATE.md)
--   violations  how many
--   results     execution results with at least one of them
SELECT
  kind,
  COUNT(*) AS violations,
  COUNT(DISTINCT line) AS results
FROM commit_protocol_violations
GROUP BY kind
ORDER BY kind
