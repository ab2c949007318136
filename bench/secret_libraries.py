#!/usr/bin/env python3
"""Issue 39's library question: would a maintained secret scanner beat rlm-mem's own rules as its redactor?

    python bench/secret_libraries.py [--corpus DIR]     # run with an interpreter that has the libraries:
    python3 -m venv /tmp/seclibs && /tmp/seclibs/bin/pip install detect-secrets credsweeper whispers
    /tmp/seclibs/bin/python bench/secret_libraries.py

For each scanner, on a corpus folder (tests/fixtures/secrets/ unless --corpus says): coverage, the share of
positives.txt's secrets whose value it reports (as a redactor needs: a line flagged without the value cannot be
redacted), and of alone.txt's tokens; false positives, the look-alike lines (lookalikes.txt) it reports anything in;
speed, CPU seconds to scan the text of a capture (the user and assistant words of a 2,000-turn transcript from
bench/corpus.py, the redactor's main load) and the import time a hook would pay. rlm-mem's redactor is measured
the same way, from this checkout (it needs only the standard library). Each library runs as its documentation
shows: detect-secrets on a file with its default plugins (SecretsCollection.scan_file), CredSweeper on strings
(StringContentProvider, its default rules and ML validation), whispers on a file with its default rules.
"""
import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "bench"), str(BUNDLE / "tests")]


def load(folder: Path):
    from harness.trust_corpus import decode

    def lines(name):
        path = folder / name
        if not path.exists():
            return []
        return [decode(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    positives = []
    for line in lines("positives.txt"):
        _, marked = line.split("\t", 1)
        positives.append((marked.replace("«", "").replace("»", ""), re.findall("«([^»]*)»", marked)))
    alone = [(line.split("\t", 1)[1], [line.split("\t", 1)[1]]) for line in lines("alone.txt")]
    return positives, alone, [line.split("\t", 1)[-1] for line in lines("lookalikes.txt")]


def capture_text(turns=2000) -> list:
    """The words of a 2,000-turn transcript (what capture redacts most)."""
    from corpus import transcript_lines

    out, users = [], 0
    for line in transcript_lines("scan", "/bench/project", 10**9, seed="capture-budget"):
        record = json.loads(line)
        content = record.get("message", {}).get("content")
        texts = [content] if isinstance(content, str) else [b.get("text") or json.dumps(b.get("input", ""))
                                                             for b in content or () if isinstance(b, dict)]
        users += record.get("type") == "user" and isinstance(content, str)
        if users > turns:
            break
        out += [t for t in texts if t]
    return out


def _covered(found_values, secrets) -> bool:
    """A secret counts as found when a reported value holds it, or holds most of it."""
    for secret in secrets:
        s = " ".join(secret.split())
        if not any(s in v or (len(v) >= 8 and v in s and len(v) >= 0.6 * len(s)) for v in found_values):
            return False
    return bool(secrets)


# ---------------------------------------------------------------- the scanners: text lines -> [values per line]
def ours(lines):
    from brain.safety.redact import find_secrets

    return [[line[a:b] for _, a, b in find_secrets(line)] for line in lines]


def detect_secrets(lines):
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(" ".join(line.split()) for line in lines) + "\n")
    found = [[] for _ in lines]
    with default_settings():
        collection = SecretsCollection()
        collection.scan_file(fh.name)
        for _, secret in collection:
            if secret.secret_value and secret.line_number:
                found[secret.line_number - 1].append(secret.secret_value)
    Path(fh.name).unlink()
    return found


def credsweeper(lines):
    from credsweeper.app import CredSweeper
    from credsweeper.file_handler.string_content_provider import StringContentProvider

    sweeper = CredSweeper()
    found = [[] for _ in lines]
    flat = [" ".join(line.split()) for line in lines]
    for candidate in sweeper.file_scan(StringContentProvider(flat)):
        for data in candidate.line_data_list:
            if 0 < data.line_num <= len(flat):
                found[data.line_num - 1].append(data.value or "")
    return found


def whispers(lines):
    import whispers as w

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(" ".join(line.split()) for line in lines) + "\n")
    found = [[] for _ in lines]
    for secret in w.secrets(f"{fh.name}"):
        line = getattr(secret, "line", None) or (secret.get("line") if isinstance(secret, dict) else None)
        value = getattr(secret, "value", None) or (secret.get("value") if isinstance(secret, dict) else "")
        if line and 0 < int(line) <= len(lines):
            found[int(line) - 1].append(str(value))
    Path(fh.name).unlink()
    return found


SCANNERS = {"rlm-mem's rules": (ours, "brain.safety.redact"), "detect-secrets": (detect_secrets, "detect_secrets"),
            "CredSweeper": (credsweeper, "credsweeper.app"), "whispers": (whispers, "whispers")}


def import_seconds(module: str) -> float:
    import subprocess

    code = f"import sys, time; sys.path.insert(0, {str(BUNDLE)!r}); t = time.perf_counter(); import {module}; " \
           f"print(time.perf_counter() - t)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return float(p.stdout.strip()) if p.returncode == 0 else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=BUNDLE / "tests" / "fixtures" / "secrets")
    parser.add_argument("--only", help="comma-separated scanner names")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    positives, alone, lookalikes = load(args.corpus)
    text = capture_text()
    rows = []
    for name, (scan, module) in SCANNERS.items():
        if args.only and name not in args.only.split(","):
            continue
        try:
            found = scan([t for t, _ in positives])
        except Exception as exc:  # noqa: BLE001 - a library missing or failing is reported, not fatal
            print(f"{name}: not measured ({type(exc).__name__}: {exc})")
            continue
        row = {"scanner": name, "positives": len(positives),
               "covered": sum(_covered(f, s) for f, (_, s) in zip(found, positives) if s)}
        found = scan([t for t, _ in alone])
        row.update(alone=len(alone), alone_covered=sum(_covered(f, s) for f, (_, s) in zip(found, alone)))
        found = scan(lookalikes)
        row.update(lookalikes=len(lookalikes), false_positives=sum(1 for f in found if f))
        started = time.process_time()
        scan(text)
        row.update(scan_cpu_s=time.process_time() - started, scan_mb=sum(map(len, text)) / 1e6,
                   import_s=import_seconds(module))
        rows.append(row)
    print(f"corpus: {args.corpus}; capture text: {rows[0]['scan_mb'] if rows else 0:.2f} MB in {len(text)} texts")
    print("| scanner | positives found | alone tokens found | look-alikes flagged | CPU s to scan the capture "
          "text | import s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scanner']} | {r['covered']}/{r['positives']} ({100 * r['covered'] / r['positives']:.0f}%) | "
              f"{r['alone_covered']}/{r['alone']} | {r['false_positives']}/{r['lookalikes']} | "
              f"{r['scan_cpu_s']:.2f} | {r['import_s']:.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
