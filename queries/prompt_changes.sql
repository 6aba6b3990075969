-- prompt_changes: how the system prompt changed between versions (with --tasks and
-- prompts.jsonl): one row per pair of consecutive versions, the platform default (repo NULL)
-- and each repository's override, in release order; the release times and the diff itself are
-- in table prompt_changes.
--   repo               the repository whose override changed (NULL: the platform default)
--   step               the change's place among its repository's: 1, 2, ...
--   from_version       the earlier version
--   to_version         the later version
--   ordered_by         released_at, or version_name when a release time is missing
--   lines_added        lines of the later text not in the earlier
--   lines_removed      lines of the earlier text not in the later
--   sections_changed   headings of the sections that changed, one a line
SELECT
  repo,
  step,
  from_version,
  to_version,
  ordered_by,
  lines_added,
  lines_removed,
  sections_changed
FROM prompt_changes
ORDER BY repo NULLS FIRST, step
