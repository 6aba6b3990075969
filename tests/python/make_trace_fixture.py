"""Write fixtures/traces/package-written.jsonl with the real opentraces-schema package, so the
Rust tests can check hindsight's content_hash against records the package itself wrote.

    .venv/bin/python tests/python/make_trace_fixture.py
"""
import os

from opentraces_schema.models import Agent, Outcome, Step, Task, ToolCall, TraceRecord

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "fixtures", "traces", "package-written.jsonl")

records = [
    TraceRecord(trace_id="11111111-0000-4000-8000-000000000001", session_id="s1", agent=Agent(name="claude-code", model="anthropic/claude-sonnet-4-20250514"),
                task=Task(description="Corriger l'accès à «session» — naïve café 😀", repository="acme/webapp"),
                steps=[Step(step_index=1, role="user", content="fix"),
                       Step(step_index=2, role="agent", content="ok", tool_calls=[ToolCall(tool_call_id="t1", tool_name="Write", input={"file_path": "a.py", "content": "x = 1\n", "n": 3, "ratio": 0.1, "big": 1e22, "tiny": 1e-7})])],
                outcome=Outcome(success=True, committed=True, commit_sha="a" * 40),
                metadata={"run_id": "42", "nested": {"b": [1, 2.5, None], "a": True}}),
    TraceRecord(trace_id="11111111-0000-4000-8000-000000000002", session_id="s2", agent=Agent(name="codex"), execution_context="runtime",
                outcome=Outcome(terminal_state="goal_reached", reward=0.75, reward_source="judge")),
]
with open(OUT, "w") as f:
    for r in records:
        f.write(r.to_jsonl_line() + "\n")
print("wrote", OUT)
