"""What a careful reader of the AIDev CSVs concludes, computed with DuckDB straight from the
CSV files, against hindsight's outcomes for the same PRs, per agent and window.

    aidev_crosscheck.py AIDEV_DIR DATASET

The reference, for a PR created at c, merged at m, closed at cl, and a window of length d
ending at e = c + d (the snapshot window ends at the collection time T):
  - unknown    when e > T (the window had not ended when the data was collected);
  - accepted   when m <= e;
  - rejected   when m is null and cl <= e;
  - otherwise neither (open at e).
Every PR where hindsight says otherwise must be one of the named differences below, each a
judgment the CSVs cannot make; anything else is printed as unexplained.
  - reverted: merged by e, and hindsight found a revert of it (a `This reverts commit` commit
    or a merged `Revert "..."` PR) inside the window: rejected, not accepted.
  - merged_by_agent / closed_by_agent: the merge or close was done by the agent's own
    automation account (the PR's author, a bot): the workflow's own act, `ignored`.
  - timeline_says_otherwise: the PR's timeline (pr_timelines.csv) has it merged, or closed
    and not reopened, by e, while the PR row's final fields do not (a close reopened later,
    or a merge recorded after the PR row was collected): hindsight reads the history, as a
    reader of both files would.
Prints one JSON document: {"rows": [...per agent and window...], "unexplained": [...]}.
"""

import json
import sys

import duckdb

AGENTS = ["Claude_Code", "Copilot", "Cursor", "Devin", "OpenAI_Codex"]
WINDOWS = [("1h", 1), ("24h", 24), ("7d", 168), ("30d", 720), ("snapshot", None)]

root, ds = sys.argv[1], sys.argv[2]
collected = json.load(open(f"{ds}/manifest.json"))["captured_at"]
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
prs = " UNION ALL ".join(
    f"SELECT DISTINCT ON (id) '{a}' AS agent, id, created_at::TIMESTAMPTZ AS c, merged_at::TIMESTAMPTZ AS m, "
    f"closed_at::TIMESTAMPTZ AS cl FROM read_csv('{root}/{a}/prs.csv', all_varchar = true, header = true)"
    for a in AGENTS
)
con.execute(f"CREATE TABLE prs AS {prs}")
import os
timelines = " UNION ALL ".join(
    f"SELECT '{a}' AS agent, pr_id AS id, event, created_at::TIMESTAMPTZ AS t FROM read_csv('{root}/{a}/pr_timelines.csv', all_varchar = true, header = true) "
    f"WHERE event IN ('closed', 'reopened', 'merged')"
    for a in AGENTS if os.path.exists(f"{root}/{a}/pr_timelines.csv")
)
con.execute(f"CREATE TABLE ev AS {timelines}")
con.execute(
    f"""CREATE TABLE hs AS SELECT safe_output_id, eval_window, outcome_status, rule_id,
        json_extract_string(details, '$.closed_by_type') AS closed_by_type,
        json_extract_string(details, '$.merged_by_type') AS merged_by_type
        FROM '{ds}/outcomes.parquet'"""
)

rows, unexplained = [], []
for w, hours in WINDOWS:
    end = f"c + INTERVAL {hours} HOUR" if hours else f"TIMESTAMPTZ '{collected}'"
    judged = con.execute(
        f"""SELECT p.agent, p.id,
              CASE WHEN {end} > TIMESTAMPTZ '{collected}' THEN 'unknown'
                   WHEN m IS NOT NULL AND m <= {end} THEN 'accepted'
                   WHEN m IS NULL AND cl IS NOT NULL AND cl <= {end} THEN 'rejected'
                   ELSE 'open' END AS ref,
              h.outcome_status, h.rule_id, h.closed_by_type, h.merged_by_type,
              (SELECT CASE WHEN bool_or(e.event = 'merged') THEN 'accepted'
                           WHEN arg_max(e.event, e.t) = 'closed' THEN 'rejected' ELSE 'open' END
                 FROM ev e WHERE e.agent = p.agent AND e.id = p.id AND e.t <= {end}) AS history
            FROM prs p LEFT JOIN hs h
              ON h.safe_output_id = 'aidev:' || p.agent || ':' || p.id AND h.eval_window = '{w}'
            ORDER BY p.agent, p.id"""
    ).fetchall()
    per_agent = {a: {"agent": a, "window": w, "prs": 0, "merged_ref": 0, "accepted": 0, "rejected_ref": 0, "rejected": 0,
                     "unknown_ref": 0, "unknown": 0, "reverted": 0, "merged_by_agent": 0, "closed_by_agent": 0,
                     "timeline_says_otherwise": 0} for a in AGENTS}
    for agent, pr, ref, status, rule, closed_by, merged_by, history in judged:
        r = per_agent[agent]
        r["prs"] += 1
        r["merged_ref"] += ref == "accepted"
        r["rejected_ref"] += ref == "rejected"
        r["unknown_ref"] += ref == "unknown"
        r["accepted"] += status == "accepted"
        r["rejected"] += status == "rejected"
        r["unknown"] += status == "unknown"
        same = (ref == status) or (ref == "open" and status in ("pending", "ignored"))
        if same:
            continue
        if ref == "accepted" and status == "rejected" and rule == "create_pull_request/reverted":
            r["reverted"] += 1
        elif ref == "accepted" and status == "ignored" and rule == "create_pull_request/merged_by_workflow" and merged_by == "same_workflow_actor":
            r["merged_by_agent"] += 1
        elif ref == "rejected" and status == "ignored" and rule == "create_pull_request/closed_by_workflow" and closed_by == "same_workflow_actor":
            r["closed_by_agent"] += 1
        elif ref == "open" and status == history and status in ("accepted", "rejected"):
            r["timeline_says_otherwise"] += 1
        else:
            unexplained.append({"agent": agent, "id": pr, "window": w, "reference": ref, "hindsight": status, "rule_id": rule})
    rows.extend(per_agent.values())

print(json.dumps({"rows": rows, "unexplained": unexplained[:50], "unexplained_count": len(unexplained)}))
