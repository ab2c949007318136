"""Seed 002's five layers of a session record, from its transcript, without a model: what the person set out to do
(intent), what was read and seen (perception), what was decided and weighed (reasoning), what was done (actions),
and how it ended (outcome). Kept in the record's metadata.layers; its text, which recall and the session-start
brief show, stays the short paragraph it was (`rlm-mem get ID --depth full` shows the layers).
"""
import re

from brain.capture.causal import trace
from brain.capture.extract import extract_memories
from brain.capture.session_record import SessionRecord
from brain.util.text import clip, sentences

MAX_ITEMS = 8
# RUM's task types, by the words of the request (the first that matches wins; most specific first).
_TASK_TYPES = (
    ("security_fix", r"\b(?:security|vulnerab\w*|cve-\d|xss|csrf|injection|secret leak\w*)\b"),
    ("test_write", r"\b(?:write|add|cover)\w* (?:\w+ ){0,3}tests?\b|\btest coverage\b"),
    ("bug_fix", r"\b(?:fix\w*|bug\w*|broken|fail\w*|error\w*|crash\w*|regression|doesn'?t work|not working|wrong)\b"),
    ("dependency_update", r"\b(?:upgrade|bump|update) (?:\w+ ){0,3}(?:dependenc\w*|packages?|version|to v?\d)|"
                          r"\bdependabot\b"),
    ("optimization", r"\b(?:faster|speed ?up|slow\w*|optimi[sz]\w*|performance|latency|memory use)\b"),
    ("refactor", r"\b(?:refactor\w*|clean ?up|rename\w*|extract\w* (?:a |the )?(?:function|class|module)|"
                 r"simplif\w*|restructur\w*)\b"),
    ("documentation", r"\b(?:docs?|documentation|readme|docstrings?|comments?|changelog)\b"),
    ("configuration", r"\b(?:config\w*|settings?|env(?:ironment)? var\w*|\.env|yaml|ci pipeline|deploy\w*)\b"),
    ("investigation", r"\b(?:why|investigat\w*|find out|look into|figure out|understand|explain|what causes)\b"),
    ("feature_add", r"\b(?:add\w*|implement\w*|create\w*|build\w*|support\w*|introduce\w*|new)\b"),
)
_CONSTRAINT = re.compile(r"\b(?:must(?:n'?t| not)?|don'?t|do not|never|without|make sure|keep\w* the|only|"
                         r"should(?:n'?t| not)|no more than|at most|at least|backwards?[- ]compatible|has to|have to)\b",
                         re.IGNORECASE)
_OBSERVATION = re.compile(r"\b(?:i see|i found|i noticed|it turns out|turns out|looks like|the (?:problem|issue|"
                          r"cause|bug|error) (?:is|was)|root cause|is missing|was missing|is never|isn'?t (?:being )?"
                          r"called)\b", re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\b(?:instead of|rather than|alternatively|another option|we could also|"
                          r"i considered|considered)\b", re.IGNORECASE)
_CHECKS = (("test", re.compile(r"\b(?:pytest|jest|vitest|mocha|rspec|phpunit|unittest|go test|cargo test|"
                               r"npm (?:run )?test|yarn test|pnpm test|dotnet test|mvn test|gradle test|tox)\b")),
           ("lint", re.compile(r"\b(?:ruff|eslint|flake8|pylint|golangci-lint|rubocop|clippy|prettier --check)\b")),
           ("typecheck", re.compile(r"\b(?:mypy|pyright|tsc|typecheck)\b")),
           ("build", re.compile(r"\b(?:make|go build|cargo build|npm run build|docker build|vite build|webpack|"
                                r"gradle build|mvn package)\b")))
_PASSED = re.compile(r"\b\d+ (?:passed|passing|tests? passed)\b", re.IGNORECASE)


def task_type(text: str) -> str:
    lowered = text.lower()
    return next((name for name, pattern in _TASK_TYPES if re.search(pattern, lowered)), "other")


def _said(turns, role: str, pattern) -> list:
    """Sentences of `role`'s turns that match `pattern`, each once, in order."""
    found = []
    for turn in turns:
        if turn.role == role and turn.text and not turn.is_compact_summary:
            found += [clip(s, 200) for s in sentences(turn.text) if pattern.search(s)]
    return list(dict.fromkeys(found))[:MAX_ITEMS]


def _verified_by(uses) -> dict | None:
    """The last check that passed (tests first, then lint, typecheck, build), with what its output said."""
    for kind, pattern in _CHECKS:
        passing = [u for u in uses if u.command and u.ok and pattern.search(u.command)]
        if passing:
            last = passing[-1]
            counted = _PASSED.findall(last.result)
            return {"type": kind, "command": clip(last.command, 200),
                    "result": counted[-1] if counted else "succeeded"}
    return None


def session_layers(record: SessionRecord, turns, *, branch=None, recalled=(), found=None) -> dict:
    """The five layers of a session whose record is `record`, from its turns (the whole transcript). `found`: the
    memories capture extracted from those same turns, when it has them (extracting again costs ~0.1 s a MB)."""
    main = [t for t in turns if not t.is_sidechain and not t.abandoned]
    users = [t for t in main if t.role == "user" and t.text and not t.is_compact_summary]
    uses = [u for t in main if t.role == "assistant" for u in t.tool_uses]
    first = sentences(users[0].text) if users else []
    found = extract_memories(turns, recalled) if found is None else found
    ran = {}
    for use in uses:  # each command once, with how its last run ended
        if use.command and use.command.strip():
            ran.pop(clip(use.command, 200), None)
            ran[clip(use.command, 200)] = use.ok
    errors = list(dict.fromkeys(clip(e, 200) for t in main for e in t.tool_errors))
    return {
        "intent": {"goal": clip(first[0], 300) if first else record.intent,
                   "task_type": task_type(" ".join(t.text for t in users[:2])),
                   "context": clip(" ".join(first[1:]), 500), "constraints": _said(users, "user", _CONSTRAINT),
                   "branch": branch},
        "perception": {"files_read": list(record.files_read)[:50], "errors_seen": errors[:MAX_ITEMS],
                       "observations": _said(main, "assistant", _OBSERVATION)},
        "reasoning": {"decisions": [clip(c.content, 300) for c in found if c.kind == "decision"][:MAX_ITEMS],
                      "alternatives": [{"approach": s} for s in _said(main, "user", _ALTERNATIVE)
                                       + _said(main, "assistant", _ALTERNATIVE)][:MAX_ITEMS]},
        "actions": {"files_changed": list(record.files_edited)[:50],
                    "commands": [{"command": c, "ok": ok} for c, ok in list(ran.items())[-20:]]},
        "outcome": {"success": (not record.failed_commands) if ran else None, "summary": record.outcome,
                    "learnings": [clip(f.learning(), 300) for f in trace(turns)[0]][:MAX_ITEMS],
                    "follow_ups": list(record.follow_ups), "verified_by": _verified_by(uses)},
    }
