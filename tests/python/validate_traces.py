"""Validate enriched traces with the real opentraces-schema package.

    python validate_traces.py FILE.jsonl

Every line must parse as a TraceRecord, and its content_hash must equal what the package
computes. Prints 'N records valid' and exits 0, or names the first failure and exits 1.
"""
import json
import sys

from opentraces_schema.models import TraceRecord


def main():
    n = 0
    for lineno, line in enumerate(open(sys.argv[1]), 1):
        if not line.strip():
            continue
        rec = TraceRecord.model_validate_json(line)
        want = rec.compute_content_hash()
        got = json.loads(line).get("content_hash")
        if got != want:
            print("line %d: content_hash %s, the package computes %s" % (lineno, got, want))
            sys.exit(1)
        n += 1
    print("%d records valid" % n)


if __name__ == "__main__":
    main()
