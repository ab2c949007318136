"""The benchmark's report: figures, targets, the markdown table (one column per store size, growth across sizes)
and the README section it is copied into. Used by bench/run.py."""
import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

README = Path(__file__).resolve().parent / "README.md"
# Creating a 1 KB file costs 0.03-0.06 ms on this VM's quiet file system and 0.1-0.8 ms for minutes after a large
# deletion (bench/README.md): above this, the report says the write rates understate the code.
SLOW_FILE_CREATION_MS = 0.1
TABLE_START, TABLE_END = "<!-- perf-table:start -->", "<!-- perf-table:end -->"


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str
    get: object  # result dict -> value or None
    # {largest store size it applies to: limit}, the first bound at or above a store's size applying (the largest
    # bound beyond); a None bound applies to every size, a None limit means no target there
    targets: dict = field(default_factory=dict)
    higher_is_better: bool = False
    stretch: float | None = None

    def target_for(self, size: int):
        if None in self.targets:
            return self.targets[None]
        for bound in sorted(self.targets):
            if size <= bound:
                return self.targets[bound]
        return self.targets[max(self.targets)] if self.targets else None

    def target_text(self) -> str:
        if not self.targets:
            return ""
        sign = "≥" if self.higher_is_better else "≤"
        if None in self.targets:
            text = f"{sign} {fmt(self.targets[None], self.unit)}"
        else:
            text = ", ".join(f"{sign} {fmt(v, self.unit)} ({k // 1000}k)" for k, v in sorted(self.targets.items())
                             if v is not None)
        return text + (f" ({fmt(self.stretch, self.unit)} stretch)" if self.stretch else "")

    def met(self, size: int, value) -> bool | None:
        limit = self.target_for(size)
        if limit is None or value is None:
            return None
        return value >= limit if self.higher_is_better else value <= limit


def fmt(value, unit: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "s":
        return f"{value:.3f} s" if value < 1 else f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
    if unit == "ms":
        return f"{value * 1000:.0f} ms"
    if unit == "MB":
        return f"{value:.1f} MB"
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "B":
        return f"{value:,.0f} B"
    return f"{value}"


def _dig(*path):
    def get(result):
        value = result
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value
    return get


FIGURES = (
    Figure("ss_ratio", "SessionStart hook / bare (brief cached)", "×", _dig("hooks", "session_start", "ratio"),
           {10_000: 2.0, 100_000: 3.0}),
    Figure("ss_write_ratio", "first SessionStart after `remember` / bare", "×",
           _dig("hooks", "session_start_after_write", "ratio"), {None: 2.0}),
    Figure("ss_compute_ratio", "SessionStart computing its brief / bare", "×",
           _dig("hooks", "session_start_computed", "ratio")),
    Figure("ups_ratio", "UserPromptSubmit / bare, a matching prompt", "×", _dig("hooks", "ups_match", "ratio"),
           {None: 2.5}),
    Figure("ups_nomatch_ratio", "UserPromptSubmit / bare, a prompt nothing matches", "×",
           _dig("hooks", "ups_nomatch", "ratio"), {None: 2.5}),
    Figure("ups_answered", "matching prompts answered (runs with context / runs)", "",
           lambda r: _share(_dig("hooks", "ups_match", "with_context")(r), _dig("hooks", "ups_match", "runs")(r))),
    Figure("recall_ratio", "`rlm-mem recall` / bare", "×", _dig("hooks", "recall", "ratio")),
    Figure("bare_ms", "bare `python -I -c pass` (under bash)", "ms", _dig("hooks", "bare", "median_s")),
    Figure("ss_ms", "SessionStart hook (brief cached)", "ms", _dig("hooks", "session_start", "median_s")),
    Figure("ss_write_ms", "first SessionStart after `remember`", "ms",
           _dig("hooks", "session_start_after_write", "median_s")),
    Figure("ss_compute_ms", "SessionStart computing its brief", "ms", _dig("hooks", "session_start_computed", "median_s")),
    Figure("ups_ms", "UserPromptSubmit, a matching prompt", "ms", _dig("hooks", "ups_match", "median_s")),
    Figure("ups_nomatch_ms", "UserPromptSubmit, a prompt nothing matches", "ms", _dig("hooks", "ups_nomatch", "median_s")),
    Figure("recall_ms", "`rlm-mem recall`", "ms", _dig("hooks", "recall", "median_s")),
    Figure("end_s", "SessionEnd hook, 5 MB transcript", "s", _dig("session_end", "median_s"), {None: 0.3}),
    Figure("remember_s", "single `rlm-mem remember`", "s", _dig("remember", "median_s")),
    Figure("remember_rss", "peak RSS, `rlm-mem remember`", "MB", _dig("remember", "peak_rss_mb")),
    Figure("capture_s", "capture: `rlm-mem ingest` of a 1 MB transcript", "s", _dig("capture", "median_s"),
           {10_000: 3.0, 100_000: None}),
    Figure("import_rate", "bulk import (`rlm-mem import --format jsonl`)", "/s", _dig("import", "chunks_per_s"),
           {None: 2000}, higher_is_better=True),
    Figure("build_rate", "store build (create_many, auto_link on)", "/s", _dig("build", "chunks_per_s"),
           {None: 2000}, higher_is_better=True),
    Figure("reindex_s", "`rlm-mem reindex` of the whole store", "s", _dig("reindex", "median_s"),
           {10_000: 6.0, 100_000: 20.0}),
    Figure("reindex_rss", "peak RSS, `rlm-mem reindex`", "MB", _dig("reindex", "peak_rss_mb"), {None: 100}),
    Figure("json_pass_s", "JSON index pass after a write (`share refresh`)", "s", _dig("json_pass", "median_s")),
    Figure("garden_s", "gardening run (`garden --apply`, 30 s budget)", "s", _dig("garden", "seconds"),
           {None: 60.0}),
    Figure("garden_done", "  what it did: masters / archived / paused", "",
           lambda r: _garden_done(_dig("garden", "first", "applied")(r))),
    Figure("garden2_s", "the next gardening run (what changed since)", "s", _dig("garden", "second", "seconds")),
    Figure("ss_rss", "peak RSS, SessionStart hook", "MB", _dig("hooks", "session_start", "peak_rss_mb"), {None: 60}),
    Figure("ups_rss", "peak RSS, UserPromptSubmit hook", "MB", _dig("hooks", "ups_match", "peak_rss_mb"), {None: 60}),
    Figure("end_rss", "peak RSS, SessionEnd hook", "MB", _dig("session_end", "peak_rss_mb"), {None: 60}),
    Figure("bare_rss", "peak RSS, bare interpreter", "MB", _dig("hooks", "bare", "peak_rss_mb")),
    Figure("chunk_bytes", "disk per chunk: chunks/ (allocated)", "B", _dig("disk", "chunks_bytes_per_chunk")),
    Figure("chunk_data", "disk per chunk: chunks/ (bytes in the files)", "B", _dig("disk", "chunk_data_per_chunk")),
    Figure("db_bytes", "disk per chunk: search.db", "B", _dig("disk", "search_db_per_chunk")),
    Figure("json_bytes", "disk per chunk: seed 000's JSON index files", "B", _dig("disk", "json_per_chunk")),
    Figure("root_bytes", "disk per chunk: whole memory root", "B", _dig("disk", "root_bytes_per_chunk")),
)


def _share(part, whole):
    return None if part is None or not whole else f"{part}/{whole}"


def _garden_done(applied):
    if not isinstance(applied, dict) or "consolidated" not in applied:
        return None
    return f"{applied['consolidated']} / {applied['archived']} / {'yes' if applied.get('paused') else 'no'}"


TROUBLE = {"ss_ratio": ("hooks", "session_start"), "ups_ratio": ("hooks", "ups_match"),
           "ups_nomatch_ratio": ("hooks", "ups_nomatch"), "ss_write_ratio": ("hooks", "session_start_after_write"),
           "ss_compute_ratio": ("hooks", "session_start_computed"),
           "recall_ratio": ("hooks", "recall"), "end_s": ("session_end",), "capture_s": ("capture",),
           "import_rate": ("import",), "reindex_s": ("reindex",), "remember_s": ("remember",),
           "json_pass_s": ("json_pass",)}


def _size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def render_table(results: list) -> tuple:
    """(markdown table, notes, every target met?)"""
    sizes = [r["size"] for r in results]
    head = ["figure", "target", *[f"{n:,} chunks" for n in sizes]]
    if len(sizes) > 1:
        head.append("growth " + "→".join(_size_label(n) for n in sizes))
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["--:"] * (len(head) - 2)) + "|"]
    notes, all_met = [], True
    for fig in FIGURES:
        values = [fig.get(r) for r in results]
        cells = []
        for r, value in zip(results, values):
            met = fig.met(r["size"], value)
            trouble = _dig(*TROUBLE[fig.key], "trouble")(r) if fig.key in TROUBLE else None
            mark = "" if met is None else (" ✔" if met else " ✘")
            if trouble:
                mark += " ⚠"
                notes.append(f"{fig.label} at {r['size']:,}: {'; '.join(trouble)}")
            if met is False or trouble:
                all_met = False
            cells.append(fmt(value, fig.unit) + mark)
        row = [fig.label, fig.target_text(), *cells]
        if len(sizes) > 1:
            first = values[0]
            numeric = all(isinstance(v, (int, float)) for v in values if v is not None)
            row.append(" → ".join(f"{v / first:.2f}" if numeric and v is not None and first else "" for v in values)
                       if numeric else "")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines), notes, all_met


def machine(python) -> str:
    """Architecture, CPU model, CPU count, kernel, the bundle interpreter's Python version, SQLite version."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    version = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True).stdout.strip()
    return (f"{platform.machine()}, {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
            f"Python {version}, SQLite {__import__('sqlite3').sqlite_version}")


def across_sizes(results: list) -> list:
    """Issue 17's checks that compare sizes within this run: (what, measured, met?) for the largest store against
    the smallest, and the matching prompts answered at the smallest but not at the largest."""
    if len(results) < 2:
        return []
    small, large = results[0], results[-1]
    label = f"{_size_label(large['size'])} / {_size_label(small['size'])}"
    out = []
    remember = [_dig("remember", "median_s")(r) for r in (small, large)]
    if None not in remember:
        ratio = remember[1] / remember[0]
        out.append((f"`remember` {label}: ≤ 1.5×", f"{ratio:.2f}×", ratio <= 1.5))
    rates = [_dig("import", "chunks_per_s")(r) for r in (small, large)]
    if None not in rates and rates[0]:
        ratio = rates[1] / rates[0]
        out.append((f"import rate {label}: ≥ 0.7×", f"{ratio:.2f}×", ratio >= 0.7))
    answered = [_dig("hooks", "ups_match", "answered")(r) or {} for r in (small, large)]
    lost = [p for p, n in answered[0].items() if n and not answered[1].get(p)]
    if answered[0]:
        out.append((f"matching prompts answered at {_size_label(small['size'])} and not at "
                    f"{_size_label(large['size'])}: none", ", ".join(repr(p) for p in lost) or "none", not lost))
    return out


def report(results: list, args, started: float, python) -> str:
    """Machine, run conditions, the table and what it means."""
    table, notes, all_met = render_table(results)
    build = "; ".join(f"{r['size']:,}: {r['build']['chunks_per_s']:,.0f} chunks/s, {r['build']['seconds']:.0f} s "
                      f"(built {r['build']['built']})" for r in results)
    imp = {r["import"]["path"] for r in results if "import" in r}
    probes = [r["import"].get("file_creation_ms") for r in results if "import" in r]
    probe = ""
    if probes and None not in probes:
        probe = (" Creating a 1 KB file just before each import: " + " / ".join(f"{ms:.3f}" for ms in probes)
                 + " ms" + (" (slow: the file system was still paying for a recent large deletion, see bench/README.md;"
                            " the write rates understate the code)" if max(probes) > SLOW_FILE_CREATION_MS else "") + ".")
    lines = [f"Machine: {machine(python)}.",
             f"Run: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, {args.runs} runs per hook "
             f"(medians; peak RSS is the maximum), {time.monotonic() - started:.0f} s, 1-minute load average "
             f"{args.load_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the end"
             + (", --quick (smaller transcripts and import)" if args.quick else "") + ".",
             "", table, "",
             f"Bulk import measured through: {', '.join(sorted(imp))} ({args.import_records:,} records into a copy "
             f"of each store, wall time including the CLI's start).{probe} Store build: {build}.",
             "Targets marked 10k apply to stores up to 10,000 chunks; ✔ met, ✘ missed, ⚠ the command reported a "
             "problem."]
    checks = across_sizes(results)
    if checks:
        lines += ["", "Across sizes, in this run:"] + [f"- {what}: {value} {'✔' if met else '✘'}"
                                                      for what, value, met in checks]
        all_met = all_met and all(met for _, _, met in checks)
    if notes:
        lines += ["", "Problems reported:"] + [f"- {n}" for n in notes]
    lines.append("")
    lines.append("All targets met." if all_met else "Some targets are missed (✘/⚠ above).")
    return "\n".join(lines)


def write_readme(text: str) -> None:
    body = f"{TABLE_START}\n{text}\n{TABLE_END}"
    current = README.read_text(encoding="utf-8") if README.exists() else ""
    if TABLE_START in current and TABLE_END in current:
        before, rest = current.split(TABLE_START, 1)
        after = rest.split(TABLE_END, 1)[1]
        README.write_text(before + body + after, encoding="utf-8")
    else:
        section = f"## Performance (issue 8)\n\nLatest run of `bench/run.py`:\n\n{body}\n"
        README.write_text((current.rstrip() + "\n\n" if current.strip() else "# Benchmarks\n\n") + section,
                          encoding="utf-8")
