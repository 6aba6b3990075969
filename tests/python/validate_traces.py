"""Validate enriched traces with the real opentraces-schema package.

    python validate_traces.py FILE.jsonl

The package is whichever `opentraces_schema` Python imports (the .venv's 0.2.0, or another
release put first on PYTHONPATH: see tests/opentraces-versions.txt). Every line must
declare that package's schema version, parse as its TraceRecord, have `outcome` and
`attribution` blocks that are exactly what its models make of them (every field the version
defines, no other, values of the right type), and a content_hash equal to what the package
computes. Prints 'N records valid (schema V)' and exits 0, or names the first failure and
exits 1.
"""
import json
import sys

from opentraces_schema.models import TraceRecord
from opentraces_schema.version import SCHEMA_VERSION


def fail(lineno, message):
    print("line %d: %s" % (lineno, message))
    sys.exit(1)


def main():
    n = 0
    for lineno, line in enumerate(open(sys.argv[1]), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        if raw.get("schema_version") != SCHEMA_VERSION:
            fail(lineno, "schema_version %r, the package is %s" % (raw.get("schema_version"), SCHEMA_VERSION))
        rec = TraceRecord.model_validate_json(line)
        for block in ("outcome", "attribution"):
            model = getattr(rec, block)
            made = None if model is None else model.model_dump(mode="json")
            if raw.get(block) != made:
                fail(lineno, "%s written %s, the package's models make %s" % (block, json.dumps(raw.get(block), sort_keys=True), json.dumps(made, sort_keys=True)))
        want = rec.compute_content_hash()
        got = raw.get("content_hash")
        if got != want:
            fail(lineno, "content_hash %s, the package computes %s" % (got, want))
        n += 1
    print("%d records valid (schema %s)" % (n, SCHEMA_VERSION))


if __name__ == "__main__":
    main()
