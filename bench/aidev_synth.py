"""Write an AIDev-shaped Parquet release of any size, for the import benchmark.

    .venv/bin/python bench/aidev_synth.py --release v3 --prs 33596 --out /tmp/aidev-v3-33k

The tables and columns are the release's own (docs/AIDEV.md); the values are synthetic
(seeded, so the same arguments give the same files): five agents (six from v4), about 12 PRs
per repository, per PR about one review, one comment, two commits, four timeline events (v3
and v5) and one task-type label (v3 and v5). Written in row groups, so memory stays flat at
any size.
"""

import argparse
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq

API = "https://api.github.com/repos/"
WEB = "https://github.com/"
ROW_GROUP = 50_000
S, I = pa.string(), pa.int64()


def ts(base, seconds):
    t = base + seconds
    days, rem = divmod(t, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    # 2025-06-01 + days, within June-July.
    month, day = (6, 1 + days) if days < 30 else (7, days - 29)
    return f"2025-{month:02d}-{day:02d}T{h:02d}:{m:02d}:{s:02d}Z"


class Writer:
    def __init__(self, folder, name, schema):
        self.w = pq.ParquetWriter(os.path.join(folder, f"{name}.parquet"), pa.schema(schema), compression="snappy")
        self.names = [n for n, _ in schema]
        self.cols = {n: [] for n in self.names}

    def add(self, *values):
        for n, v in zip(self.names, values):
            self.cols[n].append(v)
        if len(self.cols[self.names[0]]) >= ROW_GROUP:
            self.flush()

    def flush(self):
        if self.cols[self.names[0]]:
            self.w.write_table(pa.table(self.cols, schema=self.w.schema))
            self.cols = {n: [] for n in self.names}

    def close(self):
        self.flush()
        self.w.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", choices=["v3", "v4", "v5"], default="v3")
    ap.add_argument("--prs", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    agents = ["OpenAI_Codex", "Copilot", "Devin", "Cursor", "Claude_Code"] + (["Google_Jules"] if a.release != "v3" else [])
    repos = max(1, a.prs // 12)
    timeline = a.release in ("v3", "v5")
    pr = Writer(a.out, "pull_request", [("id", I), ("number", I), ("title", S), ("user", S), ("user_id", I), ("state", S), ("created_at", S), ("closed_at", S),
                                        ("merged_at", S), ("repo_url", S), ("repo_id", I), ("html_url", S), ("body", S), ("agent", S)])
    rev = Writer(a.out, "pr_reviews", [("id", I)] + ([("pull_request_review_id", I)] if a.release == "v5" else []) +
                 [("pr_id", I), ("user", S), ("user_type", S), ("state", S), ("submitted_at", S), ("body", S)])
    com = Writer(a.out, "pr_comments", [("id", I), ("pr_id", I), ("user", S), ("user_id", I), ("user_type", S), ("created_at", S), ("body", S)])
    cmt = Writer(a.out, "pr_commits", [("sha", S), ("pr_id", I), ("author", S), ("committer", S), ("message", S)])
    tl = Writer(a.out, "pr_timeline", [("pr_id", I), ("event", S), ("commit_id", S), ("created_at", S), ("actor", S), ("assignee", S), ("label", S),
                                       ("message", S)]) if timeline else None
    tt = Writer(a.out, "pr_task_type", [("agent", S), ("id", I), ("title", S), ("reason", S), ("type", S), ("confidence", I)]) if timeline else None
    types = ["feat", "fix", "docs", "refactor", "test", "chore", "build", "ci", "perf", "style", "other"]
    body = "Summary of the change.\n\n" + "Details of what was done and why. " * 12
    for k in range(a.prs):
        agent = agents[k % len(agents)]
        r = k % repos
        repo = f"owner{r}/repo{r}"
        number = k // repos + 1
        pid = 3_000_000_000 + k
        created = rnd.randrange(0, 50 * 86400)
        fate = rnd.random()
        closed = created + rnd.randrange(600, 5 * 86400) if fate < 0.85 else None
        merged = closed if fate < 0.6 else None
        author = f"dev{rnd.randrange(a.prs // 5 + 1)}"
        pr.add(pid, number, f"Change {k}", author, 1000 + k, "closed" if closed else "open", ts(0, created), ts(0, closed) if closed else None,
               ts(0, merged) if merged else None, API + repo, 500_000 + r, f"{WEB}{repo}/pull/{number}", body, agent)
        if rnd.random() < 0.8:
            row = [9_000_000_000 + k] + ([9_000_000_000 + k] if a.release == "v5" else [])
            rev.add(*row, pid, f"rev{r}", "User", rnd.choice(["APPROVED", "COMMENTED", "CHANGES_REQUESTED"]), ts(0, created + 300), "Looks fine.")
        com.add(8_000_000_000 + k, pid, f"rev{r}", 77, "User", ts(0, created + 200), "A comment on the change.")
        for c in range(2):
            cmt.add(f"{k:032x}{c:08x}", pid, author, author, f"Commit {c} of change {k}")
        if tl:
            tl.add(pid, "committed", f"{k:032x}{0:08x}", None, None, None, None, f"Commit 0 of change {k}")
            tl.add(pid, "labeled", None, ts(0, created + 100), f"rev{r}", None, "enhancement", None)
            if merged:
                tl.add(pid, "merged", f"{k:032x}{1:08x}", ts(0, merged), f"rev{r}", None, None, None)
            if closed:
                tl.add(pid, "closed", None, ts(0, closed), f"rev{r}", None, None, None)
            tt.add(agent, pid, f"Change {k}", "synthetic", types[k % len(types)], 8)
    for w in [pr, rev, com, cmt, tl, tt]:
        if w:
            w.close()
    repo = Writer(a.out, "repository", [("id", I), ("url", S), ("license", S), ("full_name", S), ("language", S), ("forks", I), ("stars", I)] +
                  ([("is_forked", pa.bool_())] if a.release == "v5" else []))
    for r in range(repos):
        repo.add(500_000 + r, f"{API}owner{r}/repo{r}", "MIT", f"owner{r}/repo{r}", "Python", r % 50, 100 + r % 5000, *([False] if a.release == "v5" else []))
    repo.close()
    if a.release in ("v3", "v4"):
        user = Writer(a.out, "user", [("id", I), ("login", S), ("followers", I), ("following", I), ("created_at", S)])
        for u in range(a.prs // 5 + 1):
            user.add(1_000_000 + u, f"dev{u}", u % 100, u % 10, "2020-01-01T00:00:00Z")
        user.close()
    if a.release == "v3":
        # v3's own tables, empty, so the release is told at any size.
        Writer(a.out, "human_pull_request", [("id", I), ("number", I), ("title", S), ("user", S), ("state", S), ("created_at", S), ("merged_at", S),
                                             ("repo_url", S), ("html_url", S), ("body", S), ("agent", S)]).close()


if __name__ == "__main__":
    main()
