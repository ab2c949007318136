"""Deterministic synthetic memory for the benchmark: chunk specs, JSONL import records and Claude Code transcripts.

Everything is generated from a fixed vocabulary with a seeded random generator, so the same size and
GENERATOR_VERSION always give the same store (bump the version when the output changes: cached stores are keyed
by it). Nothing comes from real conversations.
"""
import itertools
import json
import random
from datetime import datetime, timedelta, timezone

GENERATOR_VERSION = "2"
SEED = "rlm-mem-bench"
# Timestamps spread over one fixed year ending shortly before the benchmark was written: recent enough that
# salience still ranks them, fixed so cached stores stay valid.
YEAR_END = datetime(2026, 11, 15, tzinfo=timezone.utc)
YEAR = timedelta(days=365)

# (config name, share of conversations). The benchmark's project folders carry `{"project": name}`.
PROJECTS = (("atlas", 0.35), ("billing-api", 0.2), ("cms", 0.15), ("data-pipeline", 0.1),
            ("mobile-app", 0.1), ("infra", 0.1))
MAIN_PROJECT = "atlas"
COMPONENTS_PER_PROJECT = 10

COMPONENT_POOL = ("billing", "auth", "search", "deploy", "database", "frontend", "gateway", "queue", "cache",
                  "logging", "scheduler", "payments", "webhooks", "importer", "exporter", "notifications", "metrics",
                  "sessions", "uploads", "reports", "invoices", "inventory", "checkout", "profiles", "ledger",
                  "catalog", "pricing", "shipping", "refunds", "tenants", "permissions", "audit", "mailer",
                  "thumbnails", "transcoder", "crawler", "recommender", "geocoder", "ratelimiter", "featureflags",
                  "onboarding", "analytics", "backups", "migrations", "sitemap", "comments", "likes", "chat")
TECH = ("postgres", "redis", "sqlite", "kafka", "nginx", "terraform", "docker", "kubernetes", "celery", "grpc",
        "graphql", "stripe", "sentry", "prometheus", "pytest", "mypy", "ruff", "react", "vite", "fastapi")
VERBS = ("retries", "caches", "logs", "rejects", "batches", "streams", "validates", "throttles", "signs", "indexes",
         "compresses", "schedules", "migrates", "replays", "deduplicates", "paginates")
OBJECTS = ("requests", "events", "tokens", "rows", "messages", "uploads", "payloads", "jobs", "sessions", "queries",
           "invoices", "reports", "webhooks", "snapshots")
ADJECTIVES = ("slow", "flaky", "stale", "missing", "duplicated", "oversized", "expired", "unsigned", "partial",
              "corrupted", "throttled", "orphaned")
REASONS = ("it keeps the p99 latency under 200 ms", "the old path lost events on restart",
           "it is simpler to operate", "the team already knows it", "it halves the hosting bill",
           "it survives a region outage", "the vendor deprecated the old API", "tests become deterministic")
STYLES = ("small focused commits", "type hints everywhere", "tabs over spaces", "explicit error messages",
          "short functions", "integration tests over mocks", "snake_case file names", "no ORMs in hot paths")
FILLER = ("then", "so", "because", "after", "before", "while", "the", "a", "this", "that", "we", "it", "check",
          "look", "again", "first", "next", "still", "now", "maybe", "probably", "also", "is", "was", "of", "to",
          "in", "for", "on", "with", "not", "but", "if", "when", "there", "all", "one", "can", "will", "just")
COMMANDS = ("pytest -q", "make lint", "git status", "docker compose up -d", "alembic upgrade head", "npm run build",
            "ruff check .", "mypy src", "terraform plan")


def _lexicon(size: int) -> tuple:
    """Pronounceable made-up words: the long tail of a real vocabulary (names, identifiers, jargon)."""
    rng = random.Random(f"{SEED}-lexicon")
    onsets, vowels, codas = "b c d f g k l m n p r s t v z br tr st pl gr".split(), "a e i o u ai ou".split(), \
        ["", "", "n", "r", "s", "x", "l", "m"]
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                          for _ in range(rng.randint(2, 3))))
    ranked = sorted(words)
    rng.shuffle(ranked)  # the rank (how common a word is) must not follow the alphabet
    return tuple(ranked)


LEXICON = _lexicon(6_000)
# Zipf's law (s = 1.07): a handful of words everywhere, most words rare, as in real conversations.
_ZIPF = tuple(itertools.accumulate(1 / (rank ** 1.07) for rank in range(1, len(LEXICON) + 1)))


def project_components(project: str) -> tuple:
    """Each project talks about its own few components (some names recur across projects)."""
    return tuple(random.Random(f"{SEED}-components-{project}").sample(COMPONENT_POOL, COMPONENTS_PER_PROJECT))


def _time(rng: random.Random) -> datetime:
    return YEAR_END - YEAR * rng.random()


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _port(rng) -> int:
    return rng.randrange(1024, 9999)


def _words(rng, n: int) -> str:
    """Running text: function words and a Zipf-distributed draw from the lexicon."""
    lexical = rng.choices(LEXICON, cum_weights=_ZIPF, k=n)
    return " ".join(rng.choice(FILLER) if rng.random() < 0.45 else lexical[i] for i in range(n))


def _file(rng, comps) -> str:
    return f"{rng.choice(comps)}/{rng.choice(('service', 'models', 'views', 'tasks', 'config'))}.py"


def user_text(rng, comps) -> str:
    c, t, o = rng.choice(comps), rng.choice(TECH), rng.choice(OBJECTS)
    return rng.choice((
        f"Why does the {c} service keep {rng.choice(ADJECTIVES)} {o}? {_words(rng, rng.randint(8, 30))}.",
        f"Can you wire {t} into {c} so it {rng.choice(VERBS)} {o}? {_words(rng, rng.randint(5, 25))}.",
        f"Look at {_file(rng, comps)}: the {o} end up {rng.choice(ADJECTIVES)} after a deploy.",
        f"Let's move the {c} {o} to {t}; {_words(rng, rng.randint(10, 40))}.",
        f"The {c} tests fail on port {_port(rng)} again. {_words(rng, rng.randint(5, 20))}.",
    ))


def assistant_text(rng, comps) -> str:
    c, t, o = rng.choice(comps), rng.choice(TECH), rng.choice(OBJECTS)
    sentences = [f"The {c} service {rng.choice(VERBS)} {o} through {t}.",
                 f"I changed {_file(rng, comps)} so that {c} {rng.choice(VERBS)} {rng.choice(ADJECTIVES)} {o}.",
                 f"{_words(rng, rng.randint(10, 60)).capitalize()}.",
                 f"Running `{rng.choice(COMMANDS)}` now shows {rng.randint(1, 90)} passed."]
    rng.shuffle(sentences)
    return " ".join(sentences[: rng.randint(2, 4)])


def memory_text(rng, kind: str, comps) -> str:
    c, t, o = rng.choice(comps), rng.choice(TECH), rng.choice(OBJECTS)
    if kind == "decision":
        return f"We decided to use {t} for the {c} {o} because {rng.choice(REASONS)}."
    if kind == "preference":
        return f"I prefer {rng.choice(STYLES)} in the {c} code."
    if kind == "correction":
        return f"Actually, the {c} service listens on port {_port(rng)}, not {_port(rng)}."
    return f"The {c} service {rng.choice(VERBS)} {o} with {t} on port {_port(rng)}."


def prompts() -> tuple:
    """UserPromptSubmit prompts for the main project: six about what it stores, three that match nothing."""
    c = project_components(MAIN_PROJECT)
    return (f"Which port does the {c[0]} service listen on?",
            f"Why did we decide to use redis for the {c[1]}?",
            f"How does the {c[2]} retry webhooks after a deploy?",
            f"what style do I prefer in the {c[3]} code",
            f"the {c[4]} tests fail again, {c[5]} events are stale",
            f"Can you look at {c[6]}/models.py, the queries are slow",
            "ok, thanks!",
            "Please continue.",
            "zorblax quintessa frobnicate wibbleton")


MEMORY_KINDS = (("decision", "decision", 0.3), ("preference", "preference", 0.2), ("correction", "fact", 0.15),
                ("memory", "fact", 0.35))


def chunk_specs(n: int):
    """Yield exactly `n` create_many specs: conversations of verbatim turns, each followed by its typed memories
    and its session record; a few global (project-less) facts and pinned memories among them."""
    rng = random.Random(f"{SEED}-{GENERATOR_VERSION}-{n}")
    names = [p for p, _ in PROJECTS]
    weights = [w for _, w in PROJECTS]
    pinned_left = 5 + n // 20_000
    made = conv = 0
    while made < n:
        conv += 1
        sid = f"bench-{n}-{conv:06d}"
        project = rng.choices(names, weights)[0]
        comps = project_components(project)
        when = _time(rng)
        base = {"conversation_id": sid}
        md = {"project": project, "project_name": project}
        specs = []
        for turn in range(rng.randint(10, 50)):
            role = "user" if turn % 2 == 0 else "assistant"
            when += timedelta(seconds=rng.randint(20, 240))
            specs.append(dict(base, content=user_text(rng, comps) if role == "user" else assistant_text(rng, comps),
                              confidence=0.7, created=_stamp(when), key=f"bench:{sid}:turn:{turn}",
                              metadata=dict(md, kind="turn", role=role,
                                            provenance={"kind": "event", "ref": f"{sid}/{turn}"})))
        for i in range(rng.randint(1, 6)):
            kind, ctype = rng.choices([k[:2] for k in MEMORY_KINDS], [k[2] for k in MEMORY_KINDS])[0]
            extra = {}
            if pinned_left and rng.random() < 0.02:
                extra["pinned"] = True
                pinned_left -= 1
            if rng.random() < 0.03:
                extra["sensitivity"] = "high"
            glob = rng.random() < 0.05  # a memory about the person, valid in every project
            specs.append(dict(base, content=memory_text(rng, kind, comps), chunk_type=ctype, confidence=0.85,
                              created=_stamp(when), key=f"bench:{sid}:mem:{i}",
                              tags=[kind, rng.choice(comps), rng.choice(TECH)],
                              metadata=dict({} if glob else md, kind=kind, category="present", **extra)))
        follow = f"add {rng.choice(ADJECTIVES)} {rng.choice(OBJECTS)} handling to {rng.choice(comps)}"
        specs.append(dict(base, chunk_type="note", confidence=0.8, created=_stamp(when), key=f"bench:{sid}:session",
                          tags=["session"],
                          content=(f"Session ({sid}). Intent: {user_text(rng, comps)} Files changed: "
                                   f"{', '.join(_file(rng, comps) for _ in range(3))}. Commands: "
                                   f"`{rng.choice(COMMANDS)}`. Outcome: {assistant_text(rng, comps)} "
                                   f"Follow-ups: {follow}."),
                          metadata=dict(md, kind="session", category="past", title=f"Session {sid}")))
        for spec in specs[: n - made]:
            yield spec
        made += min(len(specs), n - made)


def import_records(n: int, seed: str = "import"):
    """`rlm-mem import --format jsonl` records (content, type, tags, created, conversation_id, ...)."""
    rng = random.Random(f"{SEED}-{GENERATOR_VERSION}-{seed}-{n}")
    comps = project_components(MAIN_PROJECT)
    for i in range(n):
        kind, ctype = rng.choices([k[:2] for k in MEMORY_KINDS], [k[2] for k in MEMORY_KINDS])[0]
        yield {"content": f"{memory_text(rng, kind, comps)} (import {seed} #{i})", "type": ctype,
               "tags": [rng.choice(comps), rng.choice(TECH)], "conversation_id": f"import-{seed}-{i // 40}",
               "created": _stamp(_time(rng)), "confidence": 0.8, "source": "import"}


# ---------------------------------------------------------------- Claude Code transcripts (JSONL)
def transcript_lines(session_id: str, cwd: str, target_bytes: int, seed: str = "transcript"):
    """Lines of a Claude Code transcript of about `target_bytes`: user prompts, assistant text with tool calls
    (Read, Edit, Bash) and their results, usage on assistant rows, and now and then a protocol trigger
    (remember / decided / actually) for extraction to find."""
    rng = random.Random(f"{SEED}-{GENERATOR_VERSION}-{seed}-{target_bytes}")
    comps = project_components(MAIN_PROJECT)
    when = YEAR_END - timedelta(days=2)
    parent, n, size = None, 0, 0
    common = {"sessionId": session_id, "cwd": cwd, "isSidechain": False, "version": "2.1.200", "gitBranch": "main"}
    triggers = ("Remember that the {c} service listens on port {p}.", "We decided to use {t} for {c}.",
                "Actually, {c} runs on port {p}, not {q}.", "I prefer {s} in this repo.")
    while size < target_bytes:
        n += 1
        when += timedelta(seconds=rng.randint(5, 90))
        uid = f"{session_id}-{n:06d}"
        text = user_text(rng, comps)
        if rng.random() < 0.15:
            text += " " + rng.choice(triggers).format(c=rng.choice(comps), t=rng.choice(TECH), p=_port(rng),
                                                      q=_port(rng), s=rng.choice(STYLES))
        line = json.dumps(dict(common, type="user", uuid=uid, parentUuid=parent, timestamp=_stamp(when),
                               message={"role": "user", "content": text}))
        parent = uid
        yield line
        size += len(line) + 1
        for step in range(rng.randint(1, 3)):
            n += 1
            aid = f"{session_id}-{n:06d}"
            blocks = [{"type": "text", "text": assistant_text(rng, comps)}]
            tool = rng.choice(("Read", "Edit", "Bash", None))
            if tool:
                inp = ({"command": rng.choice(COMMANDS)} if tool == "Bash" else
                       {"file_path": f"{cwd}/{_file(rng, comps)}"} if tool == "Read" else
                       {"file_path": f"{cwd}/{_file(rng, comps)}", "old_string": _words(rng, 6),
                        "new_string": _words(rng, 8)})
                blocks.append({"type": "tool_use", "id": f"toolu_{aid}", "name": tool, "input": inp})
            row = dict(common, type="assistant", uuid=aid, parentUuid=parent, timestamp=_stamp(when),
                       message={"role": "assistant", "model": "claude-bench", "content": blocks,
                                "usage": {"input_tokens": rng.randint(100, 5000),
                                          "cache_read_input_tokens": rng.randint(0, 60_000),
                                          "output_tokens": rng.randint(50, 900)}})
            parent = aid
            line = json.dumps(row)
            yield line
            size += len(line) + 1
            if tool:
                n += 1
                rid = f"{session_id}-{n:06d}"
                output = "\n".join(_words(rng, 12) for _ in range(rng.randint(2, 40)))  # tool output: bulk, not kept
                row = dict(common, type="user", uuid=rid, parentUuid=parent, timestamp=_stamp(when),
                           message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{aid}",
                                                                 "content": output}]})
                parent = rid
                line = json.dumps(row)
                yield line
                size += len(line) + 1


def write_transcript(path, session_id: str, cwd: str, target_bytes: int, seed: str = "transcript") -> None:
    """Write a transcript of at least `target_bytes`."""
    with open(path, "w", encoding="utf-8") as fh:
        for line in transcript_lines(session_id, cwd, target_bytes, seed):
            fh.write(line + "\n")
