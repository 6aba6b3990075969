-- aidev/inline_review: per agent, the share of PRs that got no inline review comment (a
-- comment on a line of the diff), as the follow-up studies of AIDev v3 and later measure
-- reviewer engagement from `pr_review_comments`. v1 publishes no inline review comments:
-- there the one row says so rather than report every PR as uncommented.
-- PR set: aidev_pull_requests, distinct by agent and PR id. A comment belongs to the PR of its
-- review, else of its pull_request_url (docs/AIDEV.md).
--   prs                    PRs
--   with_inline_comments   PRs with at least one inline review comment
--   no_inline_share        (prs - with_inline_comments) / prs, with its 95% Wilson interval
--   missing                NULL; on a release without inline review comments, the one row says so
WITH prs AS (
  SELECT DISTINCT agent, id FROM aidev_pull_requests WHERE id IS NOT NULL AND agent IS NOT NULL
),
commented AS (
  SELECT DISTINCT agent, pr_id FROM aidev_review_comments WHERE pr_id IS NOT NULL AND agent IS NOT NULL
),
counts AS (
  SELECT p.agent, COUNT(*) AS prs, SUM(CASE WHEN c.pr_id IS NOT NULL THEN 1 ELSE 0 END) AS with_inline_comments
  FROM prs p
  LEFT JOIN commented c ON c.agent = p.agent AND c.pr_id = p.id
  GROUP BY p.agent
),
status AS (
  SELECT release, present, 1 AS k FROM source_tables WHERE table_name = 'aidev_review_comments'
)
SELECT
  c.agent,
  c.prs,
  c.with_inline_comments,
  CAST(c.prs - c.with_inline_comments AS DOUBLE) / c.prs AS no_inline_share,
  wilson_low(c.prs - c.with_inline_comments, c.prs) AS no_inline_share_low,
  wilson_high(c.prs - c.with_inline_comments, c.prs) AS no_inline_share_high,
  CASE WHEN s.present THEN NULL
    ELSE 'aidev_review_comments: this ' || s.release || ' copy has no inline review comments (pr_review_comments is in v3, v4 and v5; v1 has none)' END AS missing
FROM status s
LEFT JOIN (SELECT *, 1 AS k FROM counts) c ON c.k = s.k AND s.present
WHERE NOT s.present OR c.agent IS NOT NULL
ORDER BY c.agent
