-- pr_decisions: every row of pr_memory_figures (a pull request of pr_feedback) with whether the repository
-- has decided it, defined here once for every bundled query that counts a merge rate over decided PRs
-- (docs/DATASET.md, Views; docs/TASKS.md):
--   decided   merged, or closed unmerged, at capture (a PR still open is undecided: out of the merge rate)
--   merge_rate = SUM(merged) / SUM(decided)
SELECT
  *,
  merged OR state = 'closed' AS decided
FROM pr_memory_figures
