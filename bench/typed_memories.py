#!/usr/bin/env python3
"""Dump the typed memories a coding-memory run stored, each beside the turn it came from, for judging them.

    .venv/bin/python bench/coding_memory.py --history NAMES --keep DIR
    .venv/bin/python bench/typed_memories.py DIR [--json OUT] [--sample N --seed S]

Typed memories are what capture makes of a session besides its verbatim turns and records (decisions,
corrections, requests, preferences, milestones, learnings). A later session reads each alone, so a person judges a
sample against the transcripts (`DIR/<history>/transcripts/`): does it say what it is about, is it true, is it
worth a later session? Prints the counts by kind, then the sample (all with no --sample).
"""
import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

RECORD_KINDS = ("turn", "session")


def typed_memories(root: Path) -> list:
    """[{history, id, kind, status, content, turn}] for every typed memory under each history's memory folder."""
    out = []
    for history in sorted(p for p in root.iterdir() if (p / "memory" / "chunks").is_dir()):
        chunks = [json.loads(p.read_text()) for p in (history / "memory" / "chunks").rglob("chunk-*.json")]
        by_id = {c["id"]: c for c in chunks}
        by_ref = {(c["metadata"].get("provenance") or {}).get("ref"): c for c in chunks
                  if c["metadata"].get("kind") == "turn"}
        for chunk in sorted(chunks, key=lambda c: c["metadata"]["created"]):
            md = chunk["metadata"]
            if md.get("kind") in RECORD_KINDS or md.get("kind") in (None, "consolidated"):
                continue
            source = next((by_id[i] for i in chunk["links"].get("derived_from") or [] if i in by_id), None) or \
                by_ref.get((md.get("provenance") or {}).get("ref"))
            out.append({"history": history.name, "id": chunk["id"], "kind": md["kind"],
                        "status": md.get("status", "active"), "content": chunk["content"],
                        "linked": bool(chunk["links"].get("derived_from")),
                        "turn": source["content"] if source else None})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the folder coding_memory.py --keep built")
    parser.add_argument("--json", dest="json_out", help="write every typed memory to this file")
    parser.add_argument("--sample", type=int, default=0, help="print N drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    found = typed_memories(args.root)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(found, indent=1), encoding="utf-8")
    print(f"{len(found)} typed memories; {sum(m['linked'] for m in found)} link their turn;",
          dict(Counter(m["kind"] for m in found)))
    shown = random.Random(args.seed).sample(found, min(args.sample, len(found))) if args.sample else found
    for i, memory in enumerate(shown):
        print(f"#{i} [{memory['history']} · {memory['kind']} · {memory['status']}] {memory['content']}")
        print(f"    turn: {(memory['turn'] or '')[:300]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
