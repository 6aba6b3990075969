-- pr_memory_figures: every row of `pr_feedback` (a pull request) with its term of each memory-effectiveness
-- figure, defined here once for every bundled query (meanings: docs/DATASET.md, Views; docs/TASKS.md).
-- Each figure over a set of PRs is the mean of its term (AVG: a NULL is left out, never counted as zero),
-- repeated mistakes the sum of pr_feedback's own column:
--   first_review_merge_rate = AVG(first_review_merge)      mean_revision_cycles = AVG(revision_cycles)
--   first_push_ci_pass_rate = AVG(first_push_ci_pass)      review_comment_density = AVG(review_comment_density)
--   repeated_mistake_count  = SUM(repeated_mistake_count)
SELECT
  *,
  CAST(CASE WHEN first_review_merged THEN 1 WHEN NOT first_review_merged THEN 0 END AS DOUBLE) AS first_review_merge,
  CASE WHEN merged THEN CAST(review_rounds AS DOUBLE) END AS revision_cycles,
  CAST(CASE WHEN first_push_ci = 'success' THEN 1 WHEN first_push_ci = 'failure' THEN 0 END AS DOUBLE) AS first_push_ci_pass,
  CAST(reviewer_comments AS DOUBLE) AS review_comment_density
FROM pr_feedback
