-- summary: the dashboard's counts, one row per evaluation window (terms: docs/DATASET.md).
--   total_safe_outputs                 every safe output (executed or only requested)
--   evaluable_outputs                  outputs whose state could be judged: status not in (skipped, unknown)
--   accepted_strong|medium|weak        accepted outputs by evidence strength
--   rejected, pending, ignored, unknown, skipped   outputs by status
--   fallback_exists_only_count         outputs whose only evidence is that the target exists (signal target_exists_only)
--   missing_type_specific_rule_count   outputs of a type that has no rule (signal no_type_specific_evaluator)
--   durable_reversal_count             merged work reverted inside the window (signal reverted_after_merge)
-- The flags it counts (evaluable, strict_accepted, ...) are the view output_flags', where each condition is
-- defined once (queries/views/output_flags.sql).
SELECT
  eval_window,
  COUNT(*) AS total_safe_outputs,
  SUM(evaluable) AS evaluable_outputs,
  SUM(strict_accepted) AS accepted_strong,
  SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'medium' THEN 1 ELSE 0 END) AS accepted_medium,
  SUM(CASE WHEN outcome_status = 'accepted' AND evidence_strength = 'weak' THEN 1 ELSE 0 END) AS accepted_weak,
  SUM(CASE WHEN outcome_status = 'rejected' THEN 1 ELSE 0 END) AS rejected,
  SUM(CASE WHEN outcome_status = 'pending' THEN 1 ELSE 0 END) AS pending,
  SUM(CASE WHEN outcome_status = 'ignored' THEN 1 ELSE 0 END) AS ignored,
  SUM(CASE WHEN outcome_status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  SUM(CASE WHEN outcome_status = 'skipped' THEN 1 ELSE 0 END) AS skipped,
  SUM(CASE WHEN human_check_signal = 'target_exists_only' THEN 1 ELSE 0 END) AS fallback_exists_only_count,
  SUM(CASE WHEN human_check_signal = 'no_type_specific_evaluator' THEN 1 ELSE 0 END) AS missing_type_specific_rule_count,
  SUM(CASE WHEN human_check_signal = 'reverted_after_merge' THEN 1 ELSE 0 END) AS durable_reversal_count
FROM output_flags
GROUP BY eval_window, window_order
ORDER BY window_order
