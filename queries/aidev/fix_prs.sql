-- aidev/fix_prs: how the agents' fix PRs ended, per agent: the shares merged, closed
-- unmerged and still open at capture, as the follow-up studies of AIDev report them for PRs
-- labelled `fix`. The still-open share is what a merge rate over all PRs counts as not
-- merged and a time to merge over merged PRs leaves out. Fix PRs: task type `fix` in the release's labels
-- (`pr_task_type`, v3 and v5; `gpt_conventional_commits.csv`, v1), joined on agent and PR id.
--   fix_prs                PRs labelled fix
--   merged_share           merged / fix_prs
--   closed_unmerged_share  closed without merge / fix_prs
--   still_open_share       open at capture / fix_prs
--   missing                NULL; on a release without task types, the one row says so
-- Shares are 0-1 and sum to 1 per agent.
WITH prs AS (
  SELECT agent, id, merged_at, state
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY agent, id ORDER BY source_line) AS nth FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL)
  WHERE nth = 1
),
fixes AS (
  SELECT DISTINCT agent, id FROM aidev_task_types WHERE type = 'fix' AND id IS NOT NULL AND agent IS NOT NULL
),
counts AS (
  SELECT
    p.agent,
    COUNT(*) AS fix_prs,
    SUM(CASE WHEN p.merged_at IS NOT NULL THEN 1 ELSE 0 END) AS merged,
    SUM(CASE WHEN p.merged_at IS NULL AND p.state = 'closed' THEN 1 ELSE 0 END) AS closed_unmerged
  FROM prs p
  JOIN fixes f ON f.agent = p.agent AND f.id = p.id
  GROUP BY p.agent
),
status AS (
  SELECT release, present, 1 AS k FROM source_tables WHERE table_name = 'aidev_task_types'
)
SELECT
  c.agent,
  c.fix_prs,
  CAST(c.merged AS DOUBLE) / c.fix_prs AS merged_share,
  CAST(c.closed_unmerged AS DOUBLE) / c.fix_prs AS closed_unmerged_share,
  CAST(c.fix_prs - c.merged - c.closed_unmerged AS DOUBLE) / c.fix_prs AS still_open_share,
  CASE WHEN s.present THEN NULL
    ELSE 'aidev_task_types: this ' || s.release || ' copy has no task-type table, so no PR is known to be a fix (v4 publishes none)' END AS missing
FROM status s
LEFT JOIN (SELECT *, 1 AS k FROM counts) c ON c.k = s.k AND s.present
WHERE NOT s.present OR c.agent IS NOT NULL
ORDER BY c.agent
