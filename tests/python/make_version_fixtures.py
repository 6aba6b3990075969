"""Write fixtures/traces/written-by-VERSION.jsonl with the opentraces-schema package Python
imports, so the tests can run records each release really writes through attach and check
the blocks it writes back with that same release.

    .venv/bin/python tests/python/make_version_fixtures.py                       # 0.2.0
    PYTHONPATH=.venv-opentraces/0.9.0 .venv/bin/python tests/python/make_version_fixtures.py

The same four sessions in every version, linked to the demo's runs (fixtures/demo/runs):
1. devtime, run 9001 (PR #101, merged): Read, Edit, Write by two models, and a file the
   session changed without a tool call (in `outcome.patch` up to 0.5, in `patches[]` from 0.6);
2. runtime, run 9004 (a comment answered by a person);
3. runtime, unlinked, its last tool call left without result (`no_result`);
4. runtime, unlinked, its last tool call failing.
"""
import os

from opentraces_schema import models as m
from opentraces_schema.version import SCHEMA_VERSION

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "fixtures", "traces", "written-by-%s.jsonl" % SCHEMA_VERSION)
SONNET = "anthropic/claude-sonnet-4-20250514"
OPUS = "anthropic/claude-opus-4-1-20250805"
TAG = SCHEMA_VERSION.replace(".", "")
PATCH = (
    "diff --git a/src/session.js b/src/session.js\n--- a/src/session.js\n+++ b/src/session.js\n@@ -1,3 +1,3 @@\n"
    " export function load(s) {\n-  return s.user.name;\n+  return s.user?.name;\n }\n"
    "diff --git a/docs/notes.md b/docs/notes.md\n--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -0,0 +1 @@\n+sed -i was here\n"
)


def tid(n):
    return "%s-0000-4000-8000-%012d" % (TAG.rjust(8, "0"), n)


def call(cid, name, inp):
    return m.ToolCall(tool_call_id=cid, tool_name=name, input=inp)


def obs(cid, content=None, error=None):
    return m.Observation(source_call_id=cid, content=content, error=error)


fields = m.Outcome.model_fields
devtime_outcome = {"patch": PATCH} if "patch" in fields else {}
devtime_extra = {}
if "patches" in m.TraceRecord.model_fields:
    devtime_extra["patches"] = [
        m.Patch(patch_id="p-session", file_path="src/session.js", step_index=3, tool_call_id="e1", capture_method=["hook_pretooluse", "hook_posttooluse"]),
        m.Patch(patch_id="p-notes", file_path="docs/notes.md", capture_method=["watcher_backstop"]),
    ]

records = [
    m.TraceRecord(
        trace_id=tid(1), session_id="s1", execution_context="devtime",
        agent=m.Agent(name="claude-code", version="2.1.0", model=SONNET),
        task=m.Task(description="fix the null session user", repository="acme/webapp"),
        steps=[
            m.Step(step_index=1, role="user", content="fix the null session user"),
            m.Step(step_index=2, role="agent", model=SONNET, tool_calls=[call("r1", "Read", {"file_path": "src/session.js"})],
                   observations=[obs("r1", "     1\texport function load(s) {\n     2\t  return s.user.name;\n     3\t}\n")]),
            m.Step(step_index=3, role="agent", model=SONNET, tool_calls=[call("e1", "Edit", {"file_path": "src/session.js", "old_string": "s.user.name", "new_string": "s.user?.name"})],
                   observations=[obs("e1", "ok")]),
            m.Step(step_index=4, role="agent", model=OPUS, tool_calls=[call("w1", "Write", {"file_path": "test/session.test.js", "content": "test('null user', () => {});\n"})],
                   observations=[obs("w1", "File created")]),
        ],
        outcome=m.Outcome(**devtime_outcome),
        metadata={"run_id": "9001"},
        **devtime_extra,
    ),
    m.TraceRecord(
        trace_id=tid(2), session_id="s2", execution_context="runtime",
        agent=m.Agent(name="copilot", model=SONNET),
        steps=[
            m.Step(step_index=1, role="user", content="answer the question"),
            m.Step(step_index=2, role="agent", model=SONNET, tool_calls=[call("c1", "add_comment", {"body": "..."})], observations=[obs("c1", "commented")]),
        ],
        metadata={"run_url": "https://github.com/acme/api/actions/runs/9004"},
    ),
    m.TraceRecord(
        trace_id=tid(3), session_id="s3", execution_context="runtime",
        agent=m.Agent(name="copilot", model=SONNET),
        steps=[
            m.Step(step_index=1, role="user", content="triage"),
            m.Step(step_index=2, role="agent", model=SONNET, tool_calls=[call("b1", "Bash", {"command": "npm test"})], observations=[obs("b1", error="no_result")]),
        ],
    ),
    m.TraceRecord(
        trace_id=tid(4), session_id="s4", execution_context="runtime",
        agent=m.Agent(name="copilot", model=SONNET),
        steps=[
            m.Step(step_index=1, role="user", content="label it"),
            m.Step(step_index=2, role="agent", model=SONNET, tool_calls=[call("g1", "github", {"op": "labels"})], observations=[obs("g1", error="HTTP 502 from api.github.com")]),
        ],
    ),
]
with open(OUT, "w") as f:
    for r in records:
        f.write(r.to_jsonl_line() + "\n")
print("wrote", OUT)
