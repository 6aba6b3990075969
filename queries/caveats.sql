-- caveats: what the rates rest on, per workflow (an AIDev import: per agent), in the snapshot window
-- (terms: docs/DATASET.md). Each count is of outputs whose verdict says less than the rates suggest:
--   outputs               outputs of the workflow
--   decided               outputs accepted or rejected: the verdicts an act or a state decided
--   actor_captured_share  the share of `decided` whose deciding actor was captured (NULL when none is
--                         decided); the rest cannot be strong, so a strict acceptance rate near 0 may
--                         mean "who acted is unknown", not "nothing was accepted"
--   actor_not_captured    decided outputs whose deciding actor was not captured (details actor_captured false)
--   merged_then_reverted  merged work reverted by the snapshot (signal reverted_after_merge): counted
--                         accepted in the windows before the revert and rejected here, and by merge
--                         rates that read merged_at alone as merged
--   captures_missing      outputs judged unknown because a capture the rules read is missing or failed
--                         (signals target_not_captured, history_missing, capture_failed): the snapshot
--                         lacks what the plan asked for (`hindsight capture --plan` lists it)
-- `details` is canonical JSON (keys sorted, no spaces), so the flag is found with a string function that
-- both DataFusion and DuckDB have.
WITH counts AS (
  SELECT
    COALESCE(workflow_name, '(unknown)') AS workflow_name,
    COUNT(*) AS outputs,
    SUM(CASE WHEN outcome_status IN ('accepted', 'rejected') THEN 1 ELSE 0 END) AS decided,
    SUM(CASE WHEN outcome_status IN ('accepted', 'rejected') AND strpos(details, '"actor_captured":false') > 0 THEN 1 ELSE 0 END) AS actor_not_captured,
    SUM(CASE WHEN human_check_signal = 'reverted_after_merge' THEN 1 ELSE 0 END) AS merged_then_reverted,
    SUM(CASE WHEN human_check_signal IN ('target_not_captured', 'history_missing', 'capture_failed') THEN 1 ELSE 0 END) AS captures_missing
  FROM outcomes
  WHERE eval_window = 'snapshot'
  GROUP BY COALESCE(workflow_name, '(unknown)')
)
SELECT
  workflow_name,
  outputs,
  decided,
  CASE WHEN decided > 0 THEN ROUND(CAST(decided - actor_not_captured AS DOUBLE) / CAST(decided AS DOUBLE), 4) END AS actor_captured_share,
  actor_not_captured,
  merged_then_reverted,
  captures_missing
FROM counts
ORDER BY workflow_name
