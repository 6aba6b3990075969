-- ci_gate_loop_state: the loop's state file beside the CI gate replay (one row per state file captured).
--   state_file         the state file (repos/O/R/contents/{program}.md, from memory/autoloop)
--   loop_paused, loop_pause_reason, loop_last_status
--                      what it records: Paused, Pause Reason, the newest of Recent Statuses
--   newest_run         the run of its newest Iteration History entry; safe_output_id: the replayed iteration it describes
--   gate_outcome, gate_status, gate_pause_reason
--                      the gate's conclusion for that iteration (gate_status: accepted or ci-fix-exhausted, when it decided)
--   comparison         agrees, disagrees or unknown; detail says which field and why
SELECT
  repo,
  state_file,
  program,
  loop_paused,
  loop_pause_reason,
  loop_last_status,
  newest_run,
  safe_output_id,
  gate_outcome,
  gate_status,
  gate_pause_reason,
  comparison,
  detail
FROM ci_gate_loop_state
ORDER BY repo, state_file
