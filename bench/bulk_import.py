"""Bulk import benchmark: 10,000 deterministic JSONL records into an empty store, timed.

    .venv/bin/python bench/bulk_import.py [--records N] [--batch-size N]

Prints chunks/s for the first import and the time of a second, idempotent import of the same file (which must
create nothing). The target is at least 500 chunks/s (2,000 stretch).
"""
import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brain.interop import import_path  # noqa: E402
from brain.store.chunk_store import ChunkStore  # noqa: E402

TOPICS = ("billing", "auth", "search", "deploy", "database", "frontend", "mobile", "queue", "cache", "logging")
VERBS = ("uses", "retries", "caches", "logs", "rejects", "batches", "streams", "validates")
TYPES = ("fact", "decision", "pattern", "note", "preference")


def make_records(n: int, seed: int = 7):
    """Deterministic records: same n and seed, same file (so runs compare)."""
    rng = random.Random(seed)
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        words = " ".join(rng.choice(("the", "a", "every", "one")) + " " + rng.choice(TOPICS) for _ in range(6))
        yield {
            "content": f"Record {i}: the {topic} service {rng.choice(VERBS)} requests on port {1000 + i % 9000}; "
                       f"{words}.",
            "type": TYPES[i % len(TYPES)],
            "tags": [topic, f"batch-{i // 1000}"],
            "conversation_id": f"bench-conv-{i // 50}",
            "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
            "confidence": round(0.5 + (i % 50) / 100, 2),
            "source": "import",
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--batch-size", type=int, default=1000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rlm-mem-bench-") as tmp:
        source = Path(tmp) / "records.jsonl"
        with open(source, "w", encoding="utf-8") as fh:
            for record in make_records(args.records):
                fh.write(json.dumps(record) + "\n")
        store = ChunkStore(Path(tmp) / "memory", actor="bench")
        start = time.perf_counter()
        report = import_path(store, "jsonl", [source], batch_size=args.batch_size)
        first = time.perf_counter() - start
        start = time.perf_counter()
        again = import_path(store, "jsonl", [source], batch_size=args.batch_size)
        second = time.perf_counter() - start
    rate = report.created / first if first else float("inf")
    print(f"records: {args.records}, batch size: {args.batch_size}")
    print(f"first import: {report.created} chunks in {first:.2f} s = {rate:,.0f} chunks/s"
          f" ({len(report.errors)} errors)")
    print(f"second import: {again.created} created, {again.skipped_existing} already present, {second:.2f} s")
    ok = report.created == args.records and again.created == 0 and not report.errors
    if not ok:
        print("FAILED: the import lost records or was not idempotent", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
