"""Turn parsed transcript turns into memory candidates, with phrase rules (no LLM).

The protocol's auto-persist triggers: explicit "remember ..." requests, user corrections, decisions, preferences,
completed milestones (todos, commits) and learnings (an error, its cause and the change that fixed it: learnings.py).
Test runs are the session record's (session_record.py), not typed memories. Each candidate
is one concept, short enough to stand alone. The phrase rules themselves are in capture/rules/ (each with the
cases it must catch and leave); this module applies them to a session's turns and tool calls.

Stdlib only: capture hooks import this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from brain.capture.learnings import Learning, Learnings
from brain.capture.novelty import Recalled, content_words, values
from brain.capture.rules.sentences import Sentence, capitalize, prose_lines, split_sentences, with_speaker
from brain.capture.rules.standalone import names_subject, states_value
from brain.capture.rules.tool_events import commits, explains_cause
from brain.capture.rules.triggers import (
    CORRECTION_RULES,
    PREFERENCE_RULES,
    REQUEST_RULES,
    Said,
    agreed,
    change_request,
    decided,
    first_found,
    has_trigger,
    is_instruction,
    vague_object,
)
from brain.capture.scopes import PROJECT, scope_of
from brain.capture.tool_calls import EDIT_TOOLS
from brain.capture.transcript import Turn
from brain.util.text import STOPWORDS, clip, holds_value, sentences, words
from brain.util.values import value_kinds

MAX_CONTENT = 600
_QUOTE_MAX = 200
_LEARNING_MAX = 520  # the failure line, why, and the change that fixed it

CONFIDENCE = {
    "request": 0.95,
    "correction": 0.95,
    "decision": 0.85,
    "decision_agreed": 0.75,
    "preference": 0.85,
    "milestone": 0.9,
    "milestone_unconfirmed": 0.8,
    "learning": 0.7,
}


@dataclass(frozen=True)
class Candidate:
    kind: str  # request | correction | decision | preference | milestone | learning
    chunk_type: str  # fact | preference | pattern | note | decision
    content: str
    confidence: float
    tags: tuple[str, ...]
    timestamp: str | None
    source_uuid: str | None
    category: str  # past | present | future
    scope: str = PROJECT  # user | project (brain/capture/scopes.py)
    statement: str = ""  # the sentence it came from: one statement gives one memory
    call: int | None = None  # a tool event's place among its turn's tool calls (a commit's: capture/echoes.py)
    part: int = 0  # a commit's place among its command line's commits


# A completed todo is a memory when it names what it changed in code's own shapes (a version `axum 0.8`, a name
# `BackgroundService`, `log/slog`, `customer_email`); the rest ("initial commit", "update test mocks") was judged
# noise: the session record lists them done.
_NAMES_CODE = re.compile(r"\d\.\d|[a-z][A-Z]|[A-Z][a-z]+[A-Z]|\w/\w|[a-z0-9]_[a-z0-9]|`")
_DONE_PREFIX = re.compile(r"^(?:done|changed|updated|fixed|ok(?:ay)?|sure|moved)\s*[:,.!-]\s*", re.IGNORECASE)


def _change_decisions(turns: list) -> list:
    """(position, decision) for each change request the next assistant reply carried out with a tool call. A vague
    request ("Make it 7 days") is recorded in the words of the reply that confirms it ("refresh tokens now expire
    after 7 days"), so that the decision stands on its own."""
    out = []
    for position, turn in enumerate(turns):
        if turn.role != "user" or not turn.text or turn.is_sidechain or turn.is_compact_summary or turn.abandoned:
            continue
        reply = next((t for t in turns[position + 1:] if t.role == "assistant" and not t.is_sidechain
                      and not t.abandoned), None)
        if reply is None or not _carried_out(reply):
            continue
        request = next((s for s in split_sentences(turn.text) if change_request(s, Said())), None)
        chosen = (request, _request_decision(request, reply)) if request else _value_carried_out(turn, reply)
        if chosen and chosen[1]:
            out.append((position, _candidate("decision", "decision", f"Decision: {chosen[1]}",
                                             CONFIDENCE["decision"], ("decision", "change"), turn, "present",
                                             chosen[0])))
    return out


def _request_decision(request: Sentence, reply) -> str:
    """What a change request carried out decided, in words that stand alone: the request itself when it names what
    it changes and the value ("Move the API to port 8090"); else the reply's sentence stating what was set ("Make
    it 7 days" -> "Refresh tokens now expire after 7 days"); else the request with the value its edit set; "" when
    nothing says the value ("bump the version" and a reply that never gives it)."""
    if not vague_object(request, Said()) and states_value(request.text):
        return request.text
    edited = _edited_pairs(reply)
    new_values = [new for _, new in edited]
    asked = content_words(request.text) - _REQUEST_WORDS
    confirming = [capitalize(_I_DID.sub("", _DONE_PREFIX.sub("", s.text))) for s in split_sentences(reply.text)
                  if not s.is_question and not explains_cause(s.text)]
    confirming = [text for text in confirming if names_subject(text) and states_value(text)]
    said = next((text for text in confirming if any(holds_value(text, v) for v in new_values)), None) or \
        next((text for text in confirming if asked & content_words(text)), None)
    if said:
        return said
    if len(edited) == 1 and not vague_object(request, Said()):
        return f"{request.text.rstrip(' .')}: {_as_set(*edited[0])}."
    return ""


_REQUEST_WORDS = frozenset("move make change set switch bump upgrade downgrade rename replace use increase decrease "
                           "raise lower reduce limit pin drop remove cut shorten extend lengthen halve double cap run "
                           "schedule please then also now".split())


def _edited_pairs(reply) -> list:
    from brain.capture.tools.edits import edit_changes  # capture only: not needed by the hook that reads turns

    return [pair for use in reply.tool_uses if use.name in EDIT_TOOLS and use.edit and use.ok is not False
            for pair in edit_changes(*use.edit)]


def _as_set(old: str, new: str) -> str:
    """("max_pct = 40", "max_pct = 60") -> "max_pct = 60 (was 40)"; ("3000", "4100") -> "4100 (was 3000)"."""
    name, _, was = old.partition(" = ")
    if was and new.startswith(name + " = "):
        return f"{new} (was {was})"
    return f"{new} (was {old})"


def _carried_out(reply) -> bool:
    """Whether the reply changed something: its edits all went through (a test run failing after them does not
    undo the change), or, with no edit, its commands did."""
    edits = [u for u in reply.tool_uses if u.name in EDIT_TOOLS]
    done = edits or [u for u in reply.tool_uses if u.command]
    return bool(done) and all(u.ok is not False for u in done)


def _value_carried_out(turn, reply):
    """(the person's sentence, the reply's) when the reply's edit set a value the person's words were about,
    without asking in so many words: the person named the value the reply states ("Once a night is enough, 03:15
    UTC." -> "the sweep now runs daily at 03:15 UTC with the cron expression 0 15 3 * * *"), the value the edit
    replaced ("the API can't sit on 3000 on that box" -> "I moved the API to port 4100"), or the time of day a
    schedule the edit set runs at ("Weekdays 6:30, Berlin time." -> "pattern '30 6 * * 1-5'"); None otherwise."""
    changes = _edited_pairs(reply)
    if not changes:
        return None
    new_values = [new for _, new in changes]
    person, clauses, covered = None, [], set()
    for sentence in split_sentences(turn.text):
        if sentence.is_question:
            continue
        named = [value for _, value in value_kinds(sentence.text)]
        about = [new for old, new in changes if holds_value(sentence.text, old) or _runs_at(named, new)]
        numbers = set(words(sentence.text))  # "Pool of 12 per task then." and `maximum-pool-size: 12`
        set_to = [(name, number) for name, _, number in (new.partition(" = ") for new in new_values)
                  if number and number in numbers]
        for said in split_sentences(reply.text):
            if said.is_question:
                continue
            if named and any(holds_value(said.text, v) for v in named) and \
                    any(holds_value(said.text, v) for v in new_values):
                wanted = named
            elif about and any(holds_value(said.text, v) for v in about):
                wanted = about
            elif any(holds_value(said.text, name) and holds_value(said.text, number) for name, number in set_to):
                wanted = [number for name, number in set_to if holds_value(said.text, name)]
            else:
                continue
            # the clause naming the value ("Replaced X with Y: the sweep now runs daily at 03:15 UTC"): an index
            # line shows a decision's first words
            clause = next(c for c in re.split(r"[:;]\s+", said.text) + [said.text]
                          if any(holds_value(c, v) for v in wanted))
            if not names_subject(clause):  # a piece of a sentence ("8.", "2 in conf/x.yaml"): the sentence
                clause = said.text
            stated = {v for v in wanted if holds_value(clause, v)}
            if stated <= covered or explains_cause(clause) or not names_subject(clause):
                continue
            covered |= stated  # one turn can ask for two changes: "the hostname's wrong ... not on 3000"
            clause = _I_DID.sub("", _DONE_PREFIX.sub("", clause.strip())).rstrip(" .")
            if clause not in clauses:  # (the reply may say both in one sentence)
                clauses.append(clause)
            person = person or sentence
    return (person, capitalize("; ".join(clauses[:3])) + ".") if clauses else None


_I_DID = re.compile(r"^(?:(?:and|also|so|then)\s+)?(?:I(?:'ve| have)?\s+)?(?=[a-z])", re.IGNORECASE)


def _runs_at(named: list, value: str) -> bool:
    """Whether `value` is a cron schedule running at one of the times of day in `named` ("6:30" and
    "30 6 * * 1-5"; six fields: seconds first)."""
    fields = value.split()
    if len(fields) not in (5, 6) or not all(set(f) <= set("0123456789*/,-") for f in fields):
        return False
    minute, hour = fields[-5], fields[-4]
    for said in named:
        clock = said.split()[0]
        if ":" in clock and minute.isdigit() and hour.isdigit():
            h, _, m = clock.partition(":")
            if h.isdigit() and m.isdigit() and (int(h), int(m)) == (int(hour), int(minute)):
                return True
    return False


_NEGATED = re.compile(r"\bnot\s+(?:in\s+|on\s+|at\s+|the\s+|a\s+|an\s+)?[`'\"]?([\w./:-]+)")


def _corrected_statement(reply: str, correction: str) -> str:
    """The statement of the assistant's `reply` that `correction` corrects, or "" when none can be told.

    In order: a statement naming what the correction negates ("..., not staging.example.dev"); one stating a
    value of the kind the correction gives but another one (5432 where the person says 5433); failing those, the
    statement sharing most of the correction's words (one at least). A statement sharing none of this is not what
    was corrected, even when it is the reply's only one. Questions are never what was corrected."""
    words = content_words(correction)
    negated = {m.group(1).lower().rstrip(".,:;") for m in _NEGATED.finditer(correction.lower())} - STOPWORDS
    given = values(words)
    best, best_score, statements = "", 0.0, 0
    for line in prose_lines(reply):
        for part in sentences(line):
            part = part.strip()
            if not part or part.rstrip(" )\"'").endswith("?"):
                continue
            statements += 1
            best = best or part
            theirs = content_words(part)
            score = len(words & theirs) / 2.0
            if negated & theirs:
                score += 4
            other_values = values(theirs) - given
            if given and other_values and any(_same_kind(v, g) for v in other_values for g in given):
                score += 3
            if score > best_score:
                best, best_score = part, score
    return clip(best, _QUOTE_MAX) if best_score > 0 else ""


def _same_kind(a: str, b: str) -> bool:
    """Two values of one kind (two numbers, two hosts, two versions; a host is not a file name)."""
    kinds_a, kinds_b = {k for k, _ in value_kinds(a)}, {k for k, _ in value_kinds(b)}
    if kinds_a or kinds_b:
        return bool(kinds_a & kinds_b)
    return a.replace(".", "").isdigit() and b.replace(".", "").isdigit()


# --- the extractor ---------------------------------------------------------------------------------------------

def _candidate(kind: str, chunk_type: str, content: str, confidence: float, tags, turn: Turn,
               category: str, sentence: Sentence | None = None) -> Candidate:
    """A candidate; one mined from a sentence carries it and the scope its words give (brain/capture/scopes.py)."""
    if sentence is None:
        return Candidate(kind, chunk_type, clip(content, MAX_CONTENT), confidence, tuple(tags), turn.timestamp,
                         turn.uuid, category)
    return Candidate(kind, chunk_type, clip(content, MAX_CONTENT), confidence, tuple(tags), turn.timestamp,
                     turn.uuid, category, scope_of(sentence.text), sentence.text)


def _mine_words(turn: Turn, previous_assistant: str, recalled: Recalled) -> list[Candidate]:
    """Requests, corrections, decisions and preferences in one turn's prose. The assistant repeating what rlm-mem
    recalled into the session ("As we decided, staging listens on 5433") states nothing new."""
    found: list[Candidate] = []
    said = Said(split_sentences(turn.text), previous_assistant)
    for i, sentence in enumerate(said.sentences):
        if turn.role == "user":
            request = first_found(REQUEST_RULES, sentence, said)
            if request:
                instruction = is_instruction(sentence)
                found.append(_candidate("request", "preference" if instruction else "fact", request,
                                        CONFIDENCE["request"], ("request", "instruction") if instruction
                                        else ("request",), turn, "present", sentence))
                continue
            if first_found(CORRECTION_RULES, sentence, said):
                correction = _correction(sentence, said.sentences[i + 1:i + 2], previous_assistant, turn)
                if correction:
                    found.append(correction)
                continue
            preference = first_found(PREFERENCE_RULES, sentence, said)
            if preference:
                found.append(_candidate("preference", "preference", preference, CONFIDENCE["preference"],
                                        ("preference",), turn, "present", sentence))
                continue
        elif recalled.echoes(sentence.text):
            continue
        decision = (decided if turn.role == "user" else agreed)(sentence, said)
        if decision:
            confidence = CONFIDENCE["decision" if turn.role == "user" else "decision_agreed"]
            found.append(_candidate("decision", "decision", decision, confidence, ("decision",), turn, "present",
                                    sentence))
    return found


def _correction(sentence: Sentence, following: list, previous_assistant: str, turn: Turn) -> Candidate | None:
    """A correction in the person's words (a short one with the sentence after it), with the statement of the
    assistant's it corrects. Kept only when it stands alone: the statement it corrects is found, or it names what it
    is about and says what it corrects in its own words ("..., not 5432", "never ...") or gives the right value."""
    text = sentence.text
    if len(text) < 80 and following and not following[0].is_question and not has_trigger(following[0]):
        text = f"{text} {following[0].text}"
    corrected = _corrected_statement(previous_assistant, text) if previous_assistant else ""
    if not (corrected or names_subject(text)) or not (corrected or _NEGATION.search(text) or states_value(text)):
        return None  # "it's X" needs the statement it answers; "not today, but ..." corrects nothing
    content = f"Correction: {with_speaker(sentence, text)}"
    if corrected:
        content += f' (correcting: "{corrected}")'
    return _candidate("correction", "fact", content, CONFIDENCE["correction"], ("correction",), turn, "present",
                      sentence)


_NEGATION = re.compile(r"\b(?:not|never|no longer|instead of|wrong|isn't|aren't|wasn't|don't|doesn't|won't|can't)\b|"
                       r"n't\b", re.IGNORECASE)


def extract_memories(turns: list[Turn], recalled=()) -> list[Candidate]:
    """Memory candidates for the protocol's auto-persist triggers, in transcript order, each statement once.

    Sidechain (subagent) and compaction-summary turns are not mined for words, since they are not the person's;
    their tool events (commits, completed todos) still count. Turns of a branch the conversation was rewound past
    count for nothing. `recalled`: the lines rlm-mem injected into the session (ParsedTranscript.recalled); the
    assistant repeating them is not a new memory.
    """
    turns = [t for t in turns if not t.abandoned]
    recalled = Recalled(recalled)
    found: list[tuple[int, Candidate]] = []  # (turn position, candidate): sorted at the end
    previous_assistant = ""
    completed: set[str] = set()
    learnings = Learnings()

    for position, turn in enumerate(turns):
        mine_words = not turn.is_sidechain and not turn.is_compact_summary
        if mine_words and turn.text:
            words = _mine_words(turn, previous_assistant if turn.role == "user" else "", recalled)
            found.extend((position, c) for c in words)
        if turn.role == "assistant" and turn.text and mine_words:
            previous_assistant = turn.text
            learnings.explained(turn, position)

        for call, use in enumerate(turn.tool_uses):
            if use.name == "TodoWrite":
                for todo in use.todos:
                    if todo.status == "completed" and todo.content not in completed and _NAMES_CODE.search(
                            todo.content):
                        completed.add(todo.content)
                        found.append((position, _candidate("milestone", "note", f"Completed: {todo.content}",
                                                           CONFIDENCE["milestone"], ("milestone", "todo"), turn,
                                                           "past")))
                continue
            found.extend((position, replace(milestone, call=call)) for milestone in _commit_milestones(use, turn))
            found.extend((learned.position, _learning(learned)) for learned in learnings.tool_call(use, turn, position))
            if use.ok is False and turn.role == "assistant" and turn.text and mine_words:
                learnings.explained(turn, position)  # a reply's text often explains its own failed call

    found.extend(_change_decisions(turns))
    found.extend((learned.position, _learning(learned)) for learned in learnings.remaining())
    found.sort(key=lambda pair: pair[0])
    return _dedupe(_merge_agreed_decisions(found))


def _merge_agreed_decisions(found: list) -> list:
    """One decision said by one side and confirmed by the other in the next turn ("Let's switch to vitest." /
    "Agreed. Decision: use vitest instead of jest for all tests.") is one memory: the first, with what the second
    adds after "Agreed:"."""
    out: list = []
    for position, cand in found:
        earlier = next((i for i in range(len(out) - 1, -1, -1)
                        if out[i][1].kind == "decision" and out[i][0] == position - 1
                        and out[i][1].source_uuid != cand.source_uuid), None) if cand.kind == "decision" else None
        if earlier is not None:
            first = out[earlier][1]
            shared = _decision_words(first.content) & _decision_words(cand.content)
            if shared:
                added = _decision_words(cand.content) - _decision_words(first.content)
                if added:
                    said = cand.content.split(":", 1)[1].strip()
                    first = replace(first, content=clip(f"{first.content.rstrip()} Agreed: {said}", MAX_CONTENT),
                                    confidence=max(first.confidence, cand.confidence))
                    out[earlier] = (out[earlier][0], first)
                continue
        out.append((position, cand))
    return [cand for _, cand in out]


_DECISION_NOISE = frozenset("decision agreed let's lets use using go going with switch stick we'll will from now "
                            "then okay also".split())


def _decision_words(content: str) -> set:
    return content_words(content) - _DECISION_NOISE


def _commit_milestones(use, turn: Turn) -> list:
    """A milestone for each commit of a command line that went through (a line may commit twice)."""
    if not use.command or use.ok is False or "nothing to commit" in use.result:
        return []
    confidence = CONFIDENCE["milestone" if use.ok else "milestone_unconfirmed"]  # unconfirmed: result not seen
    return [replace(_candidate("milestone", "note", f"Committed: {subject}", confidence, ("milestone", "git"), turn,
                               "past"), part=part) for part, (subject, _) in enumerate(commits(use.command))]


def _learning(learned: Learning) -> Candidate:
    return _candidate("learning", "pattern", clip(learned.content, _LEARNING_MAX), CONFIDENCE["learning"],
                      ("learning", "error-fix"), learned.turn, "past")


def _dedupe(candidates) -> list[Candidate]:
    """Each content once per kind, and each statement once: the first trigger that took a sentence keeps it (a
    request is not also a change decision)."""
    seen = set()
    out = []
    for c in candidates:
        keys = [(c.kind, c.content.lower())] + ([(c.source_uuid, c.statement)] if c.statement else [])
        if not any(key in seen for key in keys):
            seen.update(keys)
            out.append(c)
    return out

