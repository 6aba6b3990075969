-- DuckDB doing convert's typed job: a snapshot's cassettes (JSONL lines
-- {path, status, page, captured_at, body}) in; `responses` and the nine typed tables
-- hindsight writes from them (issues, pull_requests, issue_comments, review_comments,
-- reviews, commits, timeline_events, reactions, issue_labels) out, one Parquet file each,
-- with the same columns, types and row order (crates/hindsight-core/src/snapshot/tables.rs, docs/DATASET.md).
--
-- bench/run.py times it beside `hindsight convert` on the same snapshot ("vs DuckDB typed").
-- bench/duckdb_typed.py runs it as one script through DuckDB's Python API, after replacing
-- {SNAPSHOT} (the snapshot directory), {OUT} (an existing directory for the Parquet files,
-- and DuckDB's spill files if it needs any) and {THREADS}; any DuckDB shell runs it the
-- same way once those are filled in. `bench/duckdb_typed.py --compare OUT DATASET` checks
-- its tables against hindsight's, row by row.
--
-- Where it differs from hindsight (each a place where the job is lighter for DuckDB or the
-- same size, never heavier):
-- - Only cassettes (`*.jsonl` at the snapshot's top) are read, not tree files, and a line
--   DuckDB cannot read stops the whole script: nothing is quarantined, no input is hashed,
--   no manifest is written.
-- - `source_line` counts the lines DuckDB read, in file order: blank lines are not counted.
-- - `body` in `responses` is the body as DuckDB's JSON reader re-writes it, not the text of
--   the input byte for byte.
-- - Times are DuckDB's TIMESTAMPTZ cast of the text, which accepts more than RFC 3339;
--   numbers written as strings ("42") are read as numbers, as hindsight does, and so are
--   "42.0"-like strings, which hindsight leaves out.
-- - `body_hash`: the same normalization (CRLF -> LF, each line's trailing white space and
--   the whole text's outer white space dropped) with regular expressions, whose white space
--   is ASCII where Rust's is Unicode.
-- - The CI tables (ci_checks, ci_commits) and the review feedback tables (review_feedback,
--   pr_feedback) are not made: they are not a JSON-to-columns job.

SET threads = {THREADS};
SET TimeZone = 'UTC';
SET preserve_insertion_order = true;
SET temp_directory = '{OUT}/.spill';

-- A JSON value as hindsight's lenient readers take it: the wrong kind is NULL, never an error.
CREATE TEMP MACRO jstr(x) AS CASE WHEN json_type(x) = 'VARCHAR' THEN x ->> '$' END;
CREATE TEMP MACRO jint(x) AS CASE json_type(x)
    WHEN 'BIGINT' THEN TRY_CAST(x AS BIGINT)
    WHEN 'UBIGINT' THEN TRY_CAST(x AS BIGINT)
    WHEN 'VARCHAR' THEN TRY_CAST(x ->> '$' AS BIGINT) END;
CREATE TEMP MACRO jbool(x) AS CASE WHEN json_type(x) = 'BOOLEAN' THEN x::BOOLEAN END;
CREATE TEMP MACRO jtime(x) AS TRY_CAST(jstr(x) AS TIMESTAMPTZ);
-- A list of names (labels, logins): strings, or objects' `name` (else `login`), joined by
-- commas; NULL when the value is no list.
CREATE TEMP MACRO jnames(x) AS CASE WHEN json_type(x) = 'ARRAY' THEN array_to_string(
    list_filter(
        list_transform(json_extract(x, '$[*]'), lambda e: CASE json_type(e)
            WHEN 'VARCHAR' THEN e ->> '$'
            WHEN 'OBJECT' THEN coalesce(jstr(json_extract(e, '$.name')), jstr(json_extract(e, '$.login'))) END),
        lambda e: e IS NOT NULL),
    ',') END;
-- sha256 of a body with CRLF -> LF, trailing blanks stripped from each line, and the whole
-- trimmed (crates/hindsight-core/src/snapshot/github.rs, normalized_body_hash).
CREATE TEMP MACRO body_hash(b) AS CASE WHEN b IS NOT NULL THEN sha256(regexp_replace(
    regexp_replace(replace(b, chr(13) || chr(10), chr(10)), '[^\S\n]+(\n|$)', '\1', 'g'),
    '^\s+|\s+$', '', 'g')) END;

-- Every line, in file order (the table's insertion order), with its path normalized:
-- no host, no leading or trailing slash, no query string.
CREATE TEMP TABLE lines AS
SELECT
    replace(filename, '{SNAPSHOT}/', '') AS source_file,
    trim(split_part(regexp_replace(trim(path), '^https://api\.github\.com', ''), '?', 1), '/') AS path,
    coalesce(status, 200) AS status,
    coalesce(page, 1) AS page,
    CAST(captured_at AS TIMESTAMPTZ) AS captured_at,
    body
FROM read_json('{SNAPSHOT}/*.jsonl', format = 'newline_delimited', filename = true,
    columns = {path: 'VARCHAR', status: 'BIGINT', page: 'BIGINT', captured_at: 'VARCHAR', body: 'JSON'});

-- Each capture with its line, repository and the copy that supersedes it: of several copies
-- of one (path, page) the one captured last is used (no time of its own counts as the
-- snapshot's, the latest; ties go to the later file and line). A file's lines are
-- consecutive rows of `lines`, in order, so a line's number is its row's distance from the
-- file's first row.
CREATE TEMP TABLE captures AS
WITH numbered AS (
    SELECT l.*, l.rowid - f.first + 1 AS source_line,
        nullif(regexp_extract(path, '^(?:graphql/)?repos/([^/]+/[^/]+)', 1), '') AS repo
    FROM lines l JOIN (SELECT source_file, min(rowid) AS first FROM lines GROUP BY source_file) f USING (source_file)
), copies AS (
    SELECT path, page, arg_max(source_file || ':' || source_line, (captured_at IS NULL, captured_at, source_file, source_line)) AS winner
    FROM numbered GROUP BY path, page HAVING count(*) > 1
)
SELECT n.path, n.page, status, repo, captured_at, body, source_file, source_line,
    CASE WHEN c.winner <> source_file || ':' || source_line THEN c.winner END AS superseded_by
FROM numbered n LEFT JOIN copies c ON n.path = c.path AND n.page = c.page;
DROP TABLE lines;

COPY (
    SELECT path, page, status, repo, captured_at, body::VARCHAR AS body, source_file, source_line, superseded_by
    FROM captures ORDER BY repo NULLS FIRST, path, page, source_file, source_line
) TO '{OUT}/responses.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

-- The copies in use of the paths the typed tables read, each with what its path names and
-- where its list items start across the path's pages. A path with any failed page is left
-- out, as hindsight leaves it out.
CREATE TEMP TABLE typed AS
WITH used AS (
    SELECT path, page, status, body, regexp_extract(path, '^repos/([^/]+/[^/]+)/(.*)$', ['repo', 'tail']) AS p
    FROM captures WHERE superseded_by IS NULL
), parts AS (
    SELECT path, page, status, body, p.repo AS repo, string_split(p.tail, '/') AS s FROM used WHERE p.repo <> ''
), kinds AS (
    SELECT path, page, status, body, repo,
        CASE
            WHEN len(s) = 2 AND s[1] = 'issues' AND TRY_CAST(s[2] AS BIGINT) IS NOT NULL THEN 'issue'
            WHEN len(s) = 3 AND s[1] = 'issues' AND s[2] = 'comments' AND TRY_CAST(s[3] AS BIGINT) IS NOT NULL THEN 'issue_comment'
            WHEN len(s) = 4 AND s[1] = 'issues' AND s[2] = 'comments' AND s[4] = 'reactions' AND TRY_CAST(s[3] AS BIGINT) IS NOT NULL THEN 'issue_comment_reactions'
            WHEN len(s) = 3 AND s[1] = 'issues' AND TRY_CAST(s[2] AS BIGINT) IS NOT NULL AND s[3] IN ('comments', 'events', 'timeline', 'labels', 'reactions') THEN 'issue_' || s[3]
            WHEN len(s) = 2 AND s[1] = 'pulls' AND TRY_CAST(s[2] AS BIGINT) IS NOT NULL THEN 'pull'
            WHEN len(s) = 3 AND s[1] = 'pulls' AND TRY_CAST(s[2] AS BIGINT) IS NOT NULL AND s[3] IN ('reviews', 'comments', 'commits') THEN 'pull_' || s[3]
        END AS kind,
        CASE WHEN len(s) >= 3 AND s[2] = 'comments' THEN TRY_CAST(s[3] AS BIGINT) ELSE TRY_CAST(s[2] AS BIGINT) END AS n
    FROM parts
)
SELECT repo, kind, n, path, page, body,
    CAST(coalesce(sum(coalesce(json_array_length(body), 0)) OVER (PARTITION BY path ORDER BY page ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS BIGINT) AS start
FROM kinds
WHERE kind IS NOT NULL
  AND path NOT IN (SELECT path FROM kinds WHERE status NOT BETWEEN 200 AND 299);
DROP TABLE captures;

-- The items of every list body, numbered across the pages of their path.
CREATE TEMP TABLE items AS
SELECT t.repo, t.kind, t.n, t.path, t.page, t.start, CAST(t.start + u.i - 1 AS BIGINT) AS position, u.e
FROM (SELECT *, json_extract(body, '$[*]') AS els FROM typed
      WHERE kind NOT IN ('issue', 'pull', 'issue_comment') AND json_type(body) = 'ARRAY') t,
    unnest(t.els) WITH ORDINALITY AS u(e, i);

COPY (
    SELECT repo, coalesce(jint(v[1]), n) AS number, coalesce(json_type(v[2]) NOT IN ('NULL'), false) AS is_pull_request,
        jstr(v[3]) AS title, lower(jstr(v[4])) AS state, lower(jstr(v[5])) AS state_reason,
        jstr(v[6]) AS author, jstr(v[7]) AS author_type, jtime(v[8]) AS created_at, jtime(v[9]) AS closed_at,
        jstr(v[10]) AS closed_by, jnames(v[11]) AS labels, coalesce(jnames(v[12]), '') AS assignees,
        jint(v[13]) AS milestone_number, jint(v[14]) AS comments, jint(v[15]) AS reactions_total,
        body_hash(jstr(v[16])) AS body_hash
    FROM (SELECT repo, n, path, json_extract(body, ['$.number', '$.pull_request', '$.title', '$.state', '$.state_reason',
            '$.user.login', '$.user.type', '$.created_at', '$.closed_at', '$.closed_by.login', '$.labels', '$.assignees',
            '$.milestone.number', '$.comments', '$.reactions.total_count', '$.body']) AS v
          FROM typed WHERE kind = 'issue')
    ORDER BY repo, path
) TO '{OUT}/issues.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, coalesce(jint(v[1]), n) AS number, jstr(v[2]) AS title, lower(jstr(v[3])) AS state,
        -- `merged` is absent from list responses; `merged_at` says the same.
        coalesce(jbool(v[4]), CASE WHEN jtime(v[12]) IS NOT NULL THEN true END) AS merged, jbool(v[5]) AS draft,
        jstr(v[6]) AS author, jstr(v[7]) AS author_type, jstr(v[8]) AS merged_by,
        jtime(v[9]) AS created_at, jtime(v[10]) AS closed_at, jtime(v[12]) AS merged_at,
        jstr(v[11]) AS merge_commit_sha, jstr(v[13]) AS head_ref, jstr(v[14]) AS head_sha, jstr(v[15]) AS base_ref,
        jnames(v[16]) AS labels
    FROM (SELECT repo, n, path, json_extract(body, ['$.number', '$.title', '$.state', '$.merged', '$.draft', '$.user.login',
            '$.user.type', '$.merged_by.login', '$.created_at', '$.closed_at', '$.merge_commit_sha', '$.merged_at',
            '$.head.ref', '$.head.sha', '$.base.ref', '$.labels']) AS v
          FROM typed WHERE kind = 'pull')
    ORDER BY repo, path
) TO '{OUT}/pull_requests.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

-- Comments from an issue's list and comments captured alone; one captured both ways is kept
-- once (the copy with the lower issue number, as hindsight's sort and dedup keep it).
COPY (
    WITH c AS (
        SELECT repo, n AS issue_number, v FROM (
            SELECT repo, n, json_extract(e, ['$.id', '$.user.login', '$.user.type', '$.created_at', '$.updated_at',
                '$.reactions.total_count', '$.isMinimized', '$.minimized', '$.body', '$.issue_url']) AS v
            FROM items WHERE kind = 'issue_comments')
        UNION ALL
        SELECT repo, TRY_CAST(regexp_extract(jstr(v[10]), '([^/]*)$', 1) AS BIGINT) AS issue_number, v FROM (
            SELECT repo, json_extract(body, ['$.id', '$.user.login', '$.user.type', '$.created_at', '$.updated_at',
                '$.reactions.total_count', '$.isMinimized', '$.minimized', '$.body', '$.issue_url']) AS v
            FROM typed WHERE kind = 'issue_comment')
    )
    SELECT repo, issue_number, jint(v[1]) AS comment_id, jstr(v[2]) AS author, jstr(v[3]) AS author_type,
        jtime(v[4]) AS created_at, jtime(v[5]) AS updated_at, jint(v[6]) AS reactions_total,
        coalesce(jbool(v[7]), jbool(v[8])) AS minimized, jstr(v[9]) AS body
    FROM c
    QUALIFY row_number() OVER (PARTITION BY repo, jint(v[1]) ORDER BY issue_number NULLS FIRST) = 1
    ORDER BY repo, issue_number NULLS FIRST, comment_id NULLS FIRST
) TO '{OUT}/issue_comments.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, n AS pull_number, jint(v[1]) AS comment_id, jint(v[2]) AS in_reply_to_id, jstr(v[3]) AS path,
        jstr(v[4]) AS author, jstr(v[5]) AS author_type, jtime(v[6]) AS created_at, jstr(v[7]) AS body, jint(v[8]) AS review_id
    FROM (SELECT repo, n, path AS p, page, position, json_extract(e, ['$.id', '$.in_reply_to_id', '$.path', '$.user.login',
            '$.user.type', '$.created_at', '$.body', '$.pull_request_review_id']) AS v
          FROM items WHERE kind = 'pull_comments')
    ORDER BY repo, p, page, position
) TO '{OUT}/review_comments.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, n AS pull_number, jint(v[1]) AS review_id, jstr(v[2]) AS author, jstr(v[3]) AS author_type,
        upper(jstr(v[4])) AS state, jtime(v[5]) AS submitted_at, jstr(v[6]) AS commit_id, jstr(v[7]) AS body
    FROM (SELECT repo, n, path, page, position, json_extract(e, ['$.id', '$.user.login', '$.user.type', '$.state',
            '$.submitted_at', '$.commit_id', '$.body']) AS v
          FROM items WHERE kind = 'pull_reviews')
    ORDER BY repo, path, page, position
) TO '{OUT}/reviews.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, n AS pull_number, position, jstr(v[1]) AS sha, jstr(v[2]) AS author, jstr(v[3]) AS committer,
        jtime(v[4]) AS authored_at, jtime(v[5]) AS committed_at, jstr(v[6]) AS message
    FROM (SELECT repo, n, path, page, position, json_extract(e, ['$.sha', '$.author.login', '$.committer.login',
            '$.commit.author.date', '$.commit.committer.date', '$.commit.message']) AS v
          FROM items WHERE kind = 'pull_commits')
    ORDER BY repo, path, page, position
) TO '{OUT}/commits.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

-- Events and timeline items. A `line-commented` (or `commit-commented`) item stands for the
-- review comments under its `comments`: each becomes an event of that kind. Positions count
-- the events of a page from where its list items start (crates/hindsight-core/src/snapshot/tables.rs).
COPY (
    WITH expanded AS (
        SELECT i.repo, i.n, i.path, i.page, i.start, i.position AS item, x.j, x.e,
            CASE WHEN i.stands_for THEN i.kind_event END AS kind_event
        FROM (SELECT *, jstr(json_extract(e, '$.event')) AS kind_event,
                  jstr(json_extract(e, '$.event')) IN ('line-commented', 'commit-commented') AND json_type(e, '$.comments') = 'ARRAY' AS stands_for
              FROM items WHERE kind IN ('issue_events', 'issue_timeline')) i,
            unnest(CASE WHEN i.stands_for THEN json_extract(i.e, '$.comments[*]') ELSE [i.e] END) WITH ORDINALITY AS x(e, j)
    ), events AS (
        SELECT repo, n, path, page, CAST(start + row_number() OVER (PARTITION BY path, page ORDER BY item, j) - 1 AS BIGINT) AS position,
            kind_event, json_extract(e, ['$.id', '$.event', '$.actor', '$.actor.login', '$.actor.type', '$.user.login',
                '$.user.type', '$.created_at', '$.submitted_at', '$.committer.date', '$.author.date', '$.label.name',
                '$.commit_id', '$.sha', '$.state_reason', '$.assignee.login', '$.source.issue.number']) AS v
        FROM expanded
    )
    SELECT repo, n AS issue_number, CASE WHEN path LIKE '%/timeline' THEN 'timeline' ELSE 'events' END AS source, position,
        jint(v[1]) AS event_id, coalesce(kind_event, jstr(v[2])) AS event,
        CASE WHEN json_type(v[3]) = 'OBJECT' THEN jstr(v[4]) ELSE jstr(v[6]) END AS actor,
        CASE WHEN json_type(v[3]) = 'OBJECT' THEN jstr(v[5]) ELSE jstr(v[7]) END AS actor_type,
        coalesce(jtime(v[8]), jtime(v[9]), jtime(v[10]), jtime(v[11])) AS created_at,
        jstr(v[12]) AS label, coalesce(jstr(v[13]), jstr(v[14])) AS commit_id, lower(jstr(v[15])) AS state_reason,
        jstr(v[16]) AS assignee, jint(v[17]) AS source_number
    FROM events
    ORDER BY repo, path, page, position
) TO '{OUT}/timeline_events.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, CASE WHEN kind = 'issue_comment_reactions' THEN 'issue_comment' ELSE 'issue' END AS subject, n AS subject_id,
        jint(v[1]) AS reaction_id, jstr(v[2]) AS author, jstr(v[3]) AS author_type, jstr(v[4]) AS content, jtime(v[5]) AS created_at
    FROM (SELECT repo, kind, n, path, page, position, json_extract(e, ['$.id', '$.user.login', '$.user.type', '$.content', '$.created_at']) AS v
          FROM items WHERE kind IN ('issue_reactions', 'issue_comment_reactions'))
    ORDER BY repo, path, page, position
) TO '{OUT}/reactions.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);

COPY (
    SELECT repo, n AS issue_number, label
    FROM (SELECT repo, n, path, page, position, CASE json_type(e) WHEN 'VARCHAR' THEN e ->> '$'
                 WHEN 'OBJECT' THEN coalesce(jstr(json_extract(e, '$.name')), jstr(json_extract(e, '$.login'))) END AS label
          FROM items WHERE kind = 'issue_labels')
    WHERE label IS NOT NULL
    ORDER BY repo, path, page, position
) TO '{OUT}/issue_labels.parquet' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 65536);
