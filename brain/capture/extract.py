"""Turn parsed transcript turns into memory candidates and a session record, with heuristics (no LLM).

The protocol's auto-persist triggers: explicit "remember ..." requests, user corrections, decisions, preferences,
completed milestones (todos, commits, passing tests) and learnings (an error and how it was fixed). Each candidate
is one concept, short enough to stand alone. The session record summarises intent, actions, outcome and
follow-ups of one session.

Stdlib only: capture hooks import this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from brain.capture.novelty import Recalled, content_words, values
from brain.capture.scopes import PROJECT, scope_of
from brain.capture.transcript import EDIT_TOOLS, READ_TOOLS, Turn
from brain.util.text import STOPWORDS, clip, holds_value, sentences, speaker_label, words
from brain.util.values import value_kinds

MAX_CONTENT = 600
_QUOTE_MAX = 200
_LEARNING_MAX = 300

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


# --- sentences -------------------------------------------------------------------------------------------------

# "Caroline: ..." speaker labels (the benchmark writes turns that way); trigger words are not speakers.
_NOT_SPEAKERS = frozenset({"note", "correction", "decision", "remember", "todo", "nb", "fyi", "update", "edit",
                           "error", "warning", "question", "answer", "summary", "caveat", "next step", "ps"})
_LEAD_IN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|oh|ah|btw|by the way|but|hey|fyi|just|well|one more thing|alright)[,!:]?\s+)*",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(r"^(?:can|could|would|will|do(?! not\b)|does|did|how|what|why|where|when|which|who|"
                             r"is|are|should|shall|may|have|has)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Sentence:
    text: str  # the sentence as written (speaker label removed)
    core: str  # the same without lead-in words ("Oh, also ...")
    body: str  # `core` lower-cased with plain apostrophes: what trigger patterns look at
    speaker: str | None
    is_question: bool


def _prose_lines(text: str):
    """Lines outside fenced code blocks and quotes: pasted code and quoted text are not the speaker's claims."""
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            in_code = not in_code
            continue
        if in_code or not stripped or stripped.startswith(">") or line.startswith(("    ", "\t")):
            continue
        yield stripped


def _sentences(text: str) -> list[_Sentence]:
    out = []
    for line in _prose_lines(text):
        speaker, rest = speaker_label(line)
        if speaker and speaker.lower() not in _NOT_SPEAKERS:
            line = rest
        else:
            speaker = None
        line = re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", line)  # list markers
        for part in sentences(line):
            part = part.strip()
            if 3 <= len(part) <= MAX_CONTENT:
                core = part[_LEAD_IN.match(part).end():]
                body = core.lower().replace("\u2019", "'")
                if len(body) != len(core):  # a few characters change length when lower-cased
                    core = body
                is_question = part.rstrip(" )\"'").endswith("?") or bool(_QUESTION_START.match(body))
                out.append(_Sentence(part, core, body, speaker, is_question))
    return out


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _with_speaker(sentence: _Sentence, content: str) -> str:
    return f"{sentence.speaker}: {content}" if sentence.speaker else content


def _word_count(text: str) -> int:
    return sum(1 for w in text.split() if any(c.isalpha() or c.isdigit() for c in w))


# --- triggers --------------------------------------------------------------------------------------------------

# Explicit requests. Each pattern matches the start of a sentence body; group "rest" is what to remember.
_REQUEST_PATTERNS = [
    re.compile(r"^(?:please\s+)?remember\s*(?:that\s+|this\s*[:,-]\s*|[:,-]\s*)(?P<rest>.+)"),
    re.compile(r"^(?:can|could|would|will) you (?:please\s+)?remember (?:that\s+|this\s*[:,-]\s*)(?P<rest>.+)"),
    re.compile(r"^(?:i want you to|i'd like you to|i need you to|make sure (?:to|you)|be sure to) "
               r"remember (?:that\s+|this\s*[:,-]\s*)?(?P<rest>.+)"),
    re.compile(r"^(?:please\s+)?(?:note that|note:|nb:?|keep in mind(?: that)?|for (?:future )?reference[,:]?)"
               r"\s+(?P<rest>.+)"),
]
# "store it in memory" is also how people talk about caches, so only "save"/"add" take a bare "it".
_SAVE_REQUEST = re.compile(
    r"\b(?:save|add)\s+(?:(?:this|that|it|these|the following)\s+)?(?:fact\s+)?(?:to|in|into)\s+"
    r"(?:your\s+|the\s+)?(?:long[- ]term\s+)?memory\b"
    r"|\b(?:store|keep|put|write)\s+(?:this|that|these|the following)\s+(?:to|in|into)\s+(?:your\s+)?"
    r"(?:long[- ]term\s+)?memory\b"
    r"|\bmemori[sz]e\s+(?:this|that|the following)\b"
)
_POLITE_ASK = re.compile(r"^(?:can|could|would|will) you\b")
_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:you should\s+|you must\s+|make sure (?:to|you)\s+)?(?P<word>always|never)\s+(?P<next>[\w'-]+)"
    r"|\bfrom now on\b|\bgoing forward\b|^(?:please\s+)?(?:do not|don't) ever\b"
)
# "Always good to hear", "Never saw it coming": chat, not instructions. An instruction's next word is a verb.
_NOT_INSTRUCTION_NEXT = frozenset(
    "mind again works work happens did does do was is are were had has have been seems fails gets got saw say said "
    "knew thought felt went came made took up good great nice fun here there a an the so such on in at for with "
    "about too more better happy glad ready enough one my your our their his her its".split()
)


def _instruction_verb(word: str) -> bool:
    return word not in _NOT_INSTRUCTION_NEXT and not (word.endswith("ed") and not word.endswith("eed"))


# Openers that correct only when they answer a statement; after a question they are just the answer.
_CORRECTION_REPLY = [
    re.compile(r"^actually\b(?!,?\s+(?:can|could|would|will|let's|let me|please|i think|never ?mind|nvm|thanks))"
               r".*\b(?:is|are|was|were|it's|that's|they're|isn't|aren't|uses?|runs?|should|must|needs?|lives?|"
               r"listens?|means?|called|named|not)\b"),
    re.compile(r"^(?:no|nope|nah)\b[,.!]?\s+(?!(?:thanks|thank you|worries|problem|need|rush|it'?s (?:fine|ok|okay|"
               r"good|alright)|that'?s (?:fine|ok|okay|good|alright)))(?:it'?s|it is|that'?s|that is|the|we|you|"
               r"i|its|they|this|use|not)\b"),
]
_CORRECTION_PATTERNS = [
    re.compile(r"^correction\s*[:,-]"),
    re.compile(r"\b(?:that'?s|that is|this is|you'?re|you are|it'?s|it is)\s+(?:wrong|incorrect|not (?:right|"
               r"correct|true|accurate))\b"),
    re.compile(r"\bnot\s+(?!only\b|just\b|merely\b|sure\b|certain\b|really\b|yet\b|too\b|that\b|exactly\b)"
               r"[\w./:-]+(?:\s+[\w./:-]+){0,4},?\s+but\s+(?!also\b)\S"),
    re.compile(r"\bi meant\b|\bwhat i meant\b|\bi mean(?:t)? to say\b"),
]

# Agreement and thanks read like "no, it's ..." / "actually that's ..." but correct nothing.
_NOT_CORRECTION = re.compile(r"\b(?:that'?s|it'?s|this is|that is|it is)\s+(?:great|fine|perfect|good|ok|okay|nice|"
                             r"awesome|correct|right|true|cool)\b|\byou'?re right\b|\byou are right\b|"
                             r"\bthanks?\b|\bthank you\b|\bnever ?mind\b")
_DECISION_USER = re.compile(
    r"\b(?:let'?s go with|let'?s stick with|let'?s switch to|we decided|we'?ve decided|we have decided|"
    r"we'?ll use|we will use|we'?ll go with|we'?re going with|we are going with|we chose|i chose|i'?ve chosen|"
    r"i decided|i'?ve decided|i'?m going with|i'?ll go with)\b|^decision\s*:"
)
_DECISION_AGREED = re.compile(r"\b(?:as (?:we )?agreed|we agreed|we'?ve agreed|we decided|we'?ve decided)\b"
                              r"|^decision\s*:")

_PREFERENCE = re.compile(
    r"^(?P<lead>please\s+)?(?P<trigger>i prefer|i'd prefer|i would prefer|i like|i don'?t like|i do not like|"
    r"i dislike|i hate|i love|i'd rather|i would rather|please don'?t|please do not)\b\s*(?P<rest>.*)"
)
_PREFERENCE_ANYWHERE = re.compile(r"\b(?:i prefer|i'd rather|i would rather|i don'?t like|i do not like)\b")
_PREFERENCE_REWRITE = {
    "i prefer": "prefers", "i'd prefer": "would prefer", "i would prefer": "would prefer", "i like": "likes",
    "i don't like": "doesn't like", "i dont like": "doesn't like", "i do not like": "does not like",
    "i dislike": "dislikes", "i hate": "hates", "i love": "loves", "i'd rather": "would rather",
    "i would rather": "would rather",
}
_PRONOUN_START = frozenset({"it", "that", "this", "those", "these", "them", "you", "one"})
# "I love that you ...", "I like how ...": about the moment, not a lasting taste.
_NOT_TASTE_START = _PRONOUN_START | {"how", "when", "what", "seeing", "hearing", "your", "the way"}
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|i'm|i've|i'd|i'll)\b")


def _remainder(match: re.Match, sentence: _Sentence) -> str:
    """The sentence's own words (original casing) from where the match's "rest" group starts."""
    return sentence.core[match.start("rest"):].strip(" -:,")


def _request(sentence: _Sentence, others: list[_Sentence], previous_assistant: str) -> str | None:
    body = sentence.body
    for pattern in _REQUEST_PATTERNS:
        m = pattern.match(body)
        if m:
            rest = _remainder(m, sentence)
            if _POLITE_ASK.match(body):  # "Can you remember that X?" asks to remember X
                rest = rest.rstrip(" ?")
            if _word_count(rest) >= 3 and not rest.endswith("?"):
                return _with_speaker(sentence, _capitalize(rest))
            return None
    save = _SAVE_REQUEST.search(body)
    if save and (not sentence.is_question or _POLITE_ASK.match(body)):
        tail = sentence.core[save.end():]
        after = tail.split(":", 1)[1].strip() if ":" in tail else ""
        if _word_count(after) >= 3:
            return _with_speaker(sentence, _capitalize(after))
        rest = " ".join(s.text for s in others if s is not sentence and not s.is_question)
        if _word_count(rest) >= 3:
            return _with_speaker(sentence, rest)
        if previous_assistant:
            return "Saved at the user's request: " + clip(previous_assistant, 400)
        return None
    if sentence.is_question:
        return None
    m = _INSTRUCTION.search(body)
    if m and not (m.group("word") and not _instruction_verb(m.group("next") or "")):
        if _word_count(sentence.text) >= 3:
            return _with_speaker(sentence, _capitalize(sentence.text))
    return None


def _is_correction(sentence: _Sentence, answers_question: bool = False) -> bool:
    body = sentence.body
    if sentence.is_question or _NOT_CORRECTION.search(body):
        return False
    if any(p.search(body) for p in _CORRECTION_PATTERNS):
        return True
    return not answers_question and any(p.search(body) for p in _CORRECTION_REPLY)


def _preference(sentence: _Sentence) -> str | None:
    if sentence.is_question:
        return None
    m = _PREFERENCE.match(sentence.body)
    if not m:
        m2 = _PREFERENCE_ANYWHERE.search(sentence.body)
        return _with_speaker(sentence, sentence.text) if m2 and _word_count(sentence.text) >= 5 else None
    rest = m.group("rest").strip()
    words = rest.split()
    trigger = m.group("trigger")
    if len(words) < 2 or (words[0] in _PRONOUN_START and len(words) < 4):
        return None  # "I like it", "I prefer that": nothing to remember without the context
    if trigger in ("i like", "i love") and words[0] in _NOT_TASTE_START:
        return None
    verb = _PREFERENCE_REWRITE.get(trigger)
    if verb is None:  # "please don't ...": keep the instruction as written
        return _with_speaker(sentence, _capitalize(sentence.text))
    if _FIRST_PERSON.search(rest):  # "User loves that it teaches me" would garble who is who
        return f"{sentence.speaker or 'User'}: {sentence.text}"
    return f"{sentence.speaker or 'User'} {verb} {_remainder(m, sentence)}"


def _decision(sentence: _Sentence, role: str) -> str | None:
    if sentence.is_question or _word_count(sentence.text) < 4:
        return None
    if role == "user" and _DECISION_USER.search(sentence.body):
        text = sentence.text
    elif role == "assistant" and _DECISION_AGREED.search(sentence.body):
        text = sentence.text
    else:
        return None
    labels = (["agreed"] if role == "assistant" else []) + ([sentence.speaker] if sentence.speaker else [])
    label = f" ({', '.join(labels)})" if labels else ""
    text = re.sub(r"(?i)^decision\s*:\s*", "", text)
    return f"Decision{label}: {text}"


# A request to change something, carried out by the assistant's next reply, is a decision the person made
# ("Move the API to port 8090", "Make it 7 days", "Use vitest instead of jest").
_CHANGE_REQUEST = re.compile(r"^(?:(?:ok(?:ay)?|actually|please|then|also|and|now)[,!]?\s+)*(?:(?:move|make|change|"
                             r"set|switch|bump|upgrade|downgrade|rename|replace|use|increase|decrease|raise|lower|"
                             r"reduce|limit|pin|drop|remove|cut|shorten|extend|lengthen|halve|double|cap)\b|"
                             r"(?:run|schedule)\b.*\bevery\b)", re.IGNORECASE)  # "run the sync every six hours"
_VAGUE_OBJECT = re.compile(r"^(?:\w+\s+){0,3}?(?:move|make|change|set|bump|raise|lower|reduce|increase|decrease|drop|"
                           r"cut|put|take|turn|bring|scale)\s+"
                           r"(?:it|that|this|them|us|everything)\b", re.IGNORECASE)
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
        decided = None
        for sentence in _sentences(turn.text):
            if sentence.is_question or not _CHANGE_REQUEST.match(sentence.body) or _word_count(sentence.text) < 3:
                continue
            text = sentence.text
            if _VAGUE_OBJECT.match(sentence.body):  # "Make it 7 days": what the reply says it set, if it says
                confirm = next((s.text for s in _sentences(reply.text) if not s.is_question and value_kinds(s.text)),
                               "")
                text = _capitalize(_DONE_PREFIX.sub("", confirm)) if confirm else ""
            decided = (sentence, text)
            break
        decided = decided or _value_carried_out(turn, reply)
        if decided and decided[1]:
            out.append((position, _candidate("decision", "decision", f"Decision: {decided[1]}",
                                             CONFIDENCE["decision"], ("decision", "change"), turn, "present",
                                             decided[0])))
    return out


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
    from brain.capture.tools.edits import edit_changes  # capture only: not needed by the hook that reads turns

    changes = [pair for use in reply.tool_uses if use.name in EDIT_TOOLS and use.edit
               for pair in edit_changes(*use.edit)]
    if not changes:
        return None
    new_values = [new for _, new in changes]
    person, clauses, covered = None, [], set()
    for sentence in _sentences(turn.text):
        if sentence.is_question:
            continue
        named = [value for _, value in value_kinds(sentence.text)]
        about = [new for old, new in changes if holds_value(sentence.text, old) or _runs_at(named, new)]
        numbers = set(words(sentence.text))  # "Pool of 12 per task then." and `maximum-pool-size: 12`
        set_to = [(name, number) for name, _, number in (new.partition(" = ") for new in new_values)
                  if number and number in numbers]
        for said in _sentences(reply.text):
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
            stated = {v for v in wanted if holds_value(clause, v)}
            if stated <= covered:
                continue
            covered |= stated  # one turn can ask for two changes: "the hostname's wrong ... not on 3000"
            clause = _I_DID.sub("", _DONE_PREFIX.sub("", clause.strip())).rstrip(" .")
            if clause not in clauses:  # (the reply may say both in one sentence)
                clauses.append(clause)
            person = person or sentence
    return (person, _capitalize("; ".join(clauses[:3])) + ".") if clauses else None


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


_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")


_NEGATED = re.compile(r"\bnot\s+(?:in\s+|on\s+|at\s+|the\s+|a\s+|an\s+)?[`'\"]?([\w./:-]+)")


def _corrected_statement(reply: str, correction: str) -> str:
    """The statement of the assistant's `reply` that `correction` corrects, or "" when none can be told.

    In order: a statement naming what the correction negates ("..., not staging.ledgerly.dev"); one stating a
    value of the kind the correction gives but another one (5432 where the person says 5433); failing those, the
    statement sharing most of the correction's words (one at least); failing all, the reply's only statement.
    Questions are never what was corrected."""
    words = content_words(correction)
    negated = {m.group(1).lower().rstrip(".,:;") for m in _NEGATED.finditer(correction.lower())} - STOPWORDS
    given = values(words)
    best, best_score, statements = "", 0.0, 0
    for line in _prose_lines(reply):
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
    return clip(best, _QUOTE_MAX) if best_score > 0 or statements == 1 else ""


def _same_kind(a: str, b: str) -> bool:
    """Two values of one kind: both numbers, or both dotted names (hosts, versions, files)."""
    return a.replace(".", "").isdigit() == b.replace(".", "").isdigit() and ("." in a) == ("." in b)


# --- tool events -----------------------------------------------------------------------------------------------

# Global options may sit between "git" and "commit" ("git -C repo commit"); an option's value never starts
# with "-", which keeps this regex free of ambiguous (exponential) backtracking.
_GIT_COMMIT = re.compile(r"\bgit\b(?:\s+-\S+(?:\s+[^-\s]\S*)?)*?\s+commit\b")
_HEREDOC_MSG = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?\s*\n(.*?)\n\s*\1\b", re.DOTALL)
_DASH_M = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:\s+|=)(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))")
_TEST_COMMAND = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|jest|vitest|mocha|"
    r"cargo\s+test|go\s+test|make\s+(?:test|check)|mvn\s+test|gradle\w*\s+test|rspec|phpunit|ctest|dotnet\s+test)\b"
)
_PASSED = re.compile(r"\b(\d+)\s+(?:passed|passing|tests? passed)\b", re.IGNORECASE)
_FAILED = re.compile(r"\b[1-9]\d*\s+(?:failed|failing|errors?)\b|\bFAILED\b|^FAIL\b", re.MULTILINE)
_GO_OK = re.compile(r"^ok\s+\S+", re.MULTILINE)
_ERROR_LINE = re.compile(r"error|exception|failed|fatal|not found|denied|cannot|can't|no such|refused|"
                         r"timed out|invalid|missing|traceback", re.IGNORECASE)
# Routine tool refusals that teach nothing: Claude just reads the file again or the person said no.
_ROUTINE_ERROR = re.compile(r"has not been read yet|string to replace not found|modified since read|"
                            r"doesn'?t want to (?:proceed|take this action)|was rejected|interrupted by user|"
                            r"found \d+ matches of the string|inputvalidationerror|file does not exist",
                            re.IGNORECASE)
_FIX_CUE = re.compile(r"\b(?:the (?:issue|problem|error|bug|cause) (?:was|is)|fixed|the fix|caused by|because|"
                      r"root cause|turns out|needed to|need to|was missing|resolved)\b", re.IGNORECASE)
_FILE_TOOLS = EDIT_TOOLS | READ_TOOLS | {"Glob", "Grep", "LS", "TodoWrite"}


def commit_message(command: str) -> str | None:
    """Subject line of a `git commit` command's message, or None when the command is not a commit with one."""
    commit = _GIT_COMMIT.search(command)
    if not commit:
        return None
    heredoc = _HEREDOC_MSG.search(command, commit.end())
    if heredoc:
        message = heredoc.group(2)
    else:
        m = _DASH_M.search(command, commit.end())
        if not m:
            return None
        message = next(g for g in m.groups() if g is not None).replace('\\"', '"')
    subject = next((line.strip() for line in message.splitlines() if line.strip()), "")
    return clip(subject, 200) or None


def _short_error(text: str) -> str:
    # pytest prefixes failure lines with "E   "; Claude Code's Bash errors start with "Exit code N".
    lines = [re.sub(r"^E\s{2,}", "", line.strip()) for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not re.fullmatch(r"(?i)exit code \d+", line)] or lines
    flagged = [line for line in lines if _ERROR_LINE.search(line)]
    # The last error-looking line names the failure (a traceback ends with the exception).
    return clip(flagged[-1] if flagged else (lines[-1] if lines else "error"), 150)


def _first_sentences(text: str, limit: int) -> str:
    out = ""
    for line in _prose_lines(text):
        for part in sentences(line):
            candidate = f"{out} {part}".strip()
            if len(candidate) > limit:
                return out or clip(part, limit)
            out = candidate
            if len(out) >= limit // 2:
                return out
    return out


_SHELL_SEPARATORS = re.compile(r"&&|\|\||;|\n")


def _command_key(use) -> str:
    """Commands count as "similar" when their main part starts with the same program and subcommand.

    The main part is the last `&&`/`;` segment ("cd repo && pytest") before any pipe ("pytest | tail").
    """
    if use.command:
        segments = [s for s in _SHELL_SEPARATORS.split(use.command) if s.strip()]
        main = segments[-1].split("|")[0] if segments else ""
        words = [w for w in main.split() if not w.startswith("-") and "=" not in w]
        return "Bash:" + " ".join(words[:2])
    return f"{use.name}:{use.file_path or ''}"


# --- the extractor ---------------------------------------------------------------------------------------------

def _candidate(kind: str, chunk_type: str, content: str, confidence: float, tags, turn: Turn,
               category: str, sentence: _Sentence | None = None) -> Candidate:
    """A candidate; one mined from a sentence carries it and the scope its words give (brain/capture/scopes.py)."""
    if sentence is None:
        return Candidate(kind, chunk_type, clip(content, MAX_CONTENT), confidence, tuple(tags), turn.timestamp,
                         turn.uuid, category)
    return Candidate(kind, chunk_type, clip(content, MAX_CONTENT), confidence, tuple(tags), turn.timestamp,
                     turn.uuid, category, scope_of(sentence.text), sentence.text)


def _has_trigger(sentence: _Sentence) -> bool:
    body = sentence.body
    return bool(any(p.match(body) for p in _REQUEST_PATTERNS) or _SAVE_REQUEST.search(body)
                or _INSTRUCTION.search(body) or _is_correction(sentence) or _PREFERENCE.match(body)
                or _PREFERENCE_ANYWHERE.search(body) or _DECISION_USER.search(body))


def _mine_words(turn: Turn, previous_assistant: str, recalled: Recalled) -> list[Candidate]:
    """Requests, corrections, decisions and preferences in one turn's prose. The assistant repeating what rlm-mem
    recalled into the session ("As we decided, staging listens on 5433") states nothing new."""
    found: list[Candidate] = []
    sentences = _sentences(turn.text)
    answers_question = previous_assistant.rstrip().rstrip("\"')*_ ").endswith("?")
    for i, sentence in enumerate(sentences):
        if turn.role == "user":
            request = _request(sentence, sentences, previous_assistant)
            if request:
                instruction = bool(_INSTRUCTION.search(sentence.body))
                found.append(_candidate("request", "preference" if instruction else "fact", request,
                                        CONFIDENCE["request"], ("request", "instruction") if instruction
                                        else ("request",), turn, "present", sentence))
                continue
            if _is_correction(sentence, answers_question):
                text = sentence.text
                following = sentences[i + 1] if i + 1 < len(sentences) else None
                if len(text) < 80 and following and not following.is_question and not _has_trigger(following):
                    text = f"{text} {following.text}"
                content = f"Correction: {_with_speaker(sentence, text)}"
                corrected = _corrected_statement(previous_assistant, text) if previous_assistant else ""
                if corrected:
                    content += f' (correcting: "{corrected}")'
                found.append(_candidate("correction", "fact", content, CONFIDENCE["correction"],
                                        ("correction",), turn, "present", sentence))
                continue
            preference = _preference(sentence)
            if preference:
                found.append(_candidate("preference", "preference", preference, CONFIDENCE["preference"],
                                        ("preference",), turn, "present", sentence))
                continue
        elif recalled.echoes(sentence.text):
            continue
        decision = _decision(sentence, turn.role)
        if decision:
            confidence = CONFIDENCE["decision" if turn.role == "user" else "decision_agreed"]
            found.append(_candidate("decision", "decision", decision, confidence, ("decision",), turn, "present",
                                    sentence))
    return found


@dataclass
class _OpenError:
    """A failed tool call waiting for its fix: an explanation from the assistant or a similar successful call."""

    key: str
    error: str
    turn: Turn
    explanation: str = ""
    explained_in: Turn | None = None
    explained_at: int = 0  # position of that turn, for ordering
    actions: list[str] = field(default_factory=list)  # what was done in between (edits, other commands)


_MAX_OPEN_ERRORS = 20


def extract_memories(turns: list[Turn], recalled=()) -> list[Candidate]:
    """Memory candidates for the protocol's auto-persist triggers, in transcript order, each statement once.

    Sidechain (subagent) and compaction-summary turns are not mined for words, since they are not the person's;
    their tool events (commits, passing tests) still count. Turns of a branch the conversation was rewound past
    count for nothing. `recalled`: the lines rlm-mem injected into the session (ParsedTranscript.recalled); the
    assistant repeating them is not a new memory.
    """
    turns = [t for t in turns if not t.abandoned]
    recalled = Recalled(recalled)
    found: list[tuple[int, Candidate]] = []  # (turn position, candidate): sorted at the end
    previous_assistant = ""
    completed: set[str] = set()
    open_errors: list[_OpenError] = []
    last_test: dict[str, tuple[int, Candidate]] = {}

    for position, turn in enumerate(turns):
        mine_words = not turn.is_sidechain and not turn.is_compact_summary
        if mine_words and turn.text:
            words = _mine_words(turn, previous_assistant if turn.role == "user" else "", recalled)
            found.extend((position, c) for c in words)
        if turn.role == "assistant" and turn.text and mine_words:
            previous_assistant = turn.text
            _note_explanation(turn, position, open_errors)

        for use in turn.tool_uses:
            if use.name == "TodoWrite":
                for todo in use.todos:
                    if todo.status == "completed" and todo.content not in completed:
                        completed.add(todo.content)
                        found.append((position, _candidate("milestone", "note", f"Completed: {todo.content}",
                                                           CONFIDENCE["milestone"], ("milestone", "todo"), turn,
                                                           "past")))
                continue
            milestone = _commit_milestone(use, turn)
            if milestone:
                found.append((position, milestone))
            test = _test_milestone(use, turn)
            if test:
                key = _command_key(use)
                last_test.pop(key, None)  # only the latest passing run of each test command
                last_test[key] = (position, test)
            found.extend((position, c) for c in _track_errors(use, turn, open_errors))
            if use.ok is False and turn.role == "assistant" and turn.text and mine_words:
                _note_explanation(turn, position, open_errors)  # a reply's text often explains its own failed call

    found.extend(_change_decisions(turns))
    for error in open_errors:  # explained by the assistant, never followed by a similar successful run
        if error.explanation and error.explained_in is not None:
            found.append((error.explained_at, _learning(error.error, error.explanation, error.explained_in)))
    found.extend(last_test.values())
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


def _commit_milestone(use, turn: Turn) -> Candidate | None:
    if not use.command or use.ok is False or "nothing to commit" in use.result:
        return None
    subject = commit_message(use.command)
    if not subject:
        return None
    confidence = CONFIDENCE["milestone" if use.ok else "milestone_unconfirmed"]  # unconfirmed: result not seen
    return _candidate("milestone", "note", f"Committed: {subject}", confidence, ("milestone", "git"), turn, "past")


def _test_milestone(use, turn: Turn) -> Candidate | None:
    if not (use.command and use.ok and _TEST_COMMAND.search(use.command)) or _FAILED.search(use.result):
        return None
    passed = _PASSED.findall(use.result)
    if not passed and not _GO_OK.search(use.result):
        return None
    detail = f" ({passed[-1]} passed)" if passed else ""
    return _candidate("milestone", "note", f"Tests passed: `{clip(use.command, 120)}`{detail}",
                      CONFIDENCE["milestone"], ("milestone", "tests"), turn, "past")


def _note_explanation(turn: Turn, position: int, open_errors: list[_OpenError]) -> None:
    """The first assistant sentence that explains a fix is attached to every error still waiting for one; without
    such a sentence, the sentence naming most of an error's words and the one after it ("distroless ships no
    zoneinfo, so LoadLocation can't find Europe/London. Importing time/tzdata in main embeds the zone database")."""
    waiting = [e for e in open_errors if not e.explanation]
    if not waiting:
        return
    sentences = [s.text for s in _sentences(turn.text) if not s.is_question]
    cued = next((text for text in sentences if _FIX_CUE.search(text)), "")
    for error in waiting:
        explanation = cued or _naming_sentences(sentences, error.error)
        if explanation:
            error.explanation, error.explained_in, error.explained_at = explanation, turn, position


def _naming_sentences(sentences: list, error: str) -> str:
    """The sentence sharing most (at least two) of `error`'s words, with the sentence after it."""
    wanted = set(_WORD.findall(error.lower())) - STOPWORDS
    best, best_score = None, 1
    for i, text in enumerate(sentences):
        score = len(wanted & set(_WORD.findall(text.lower())))
        if score > best_score:
            best, best_score = i, score
    return "" if best is None else " ".join(sentences[best:best + 2])


def _track_errors(use, turn: Turn, open_errors: list[_OpenError]) -> list[Candidate]:
    """Open an error on a failed call; close it as a learning when a similar call later succeeds."""
    if use.name in _FILE_TOOLS:
        for error in open_errors:  # an edit between failure and success is likely the fix
            if use.name in EDIT_TOOLS and use.file_path and len(error.actions) < 3:
                error.actions.append(f"editing {use.file_path}")
        return []
    key = _command_key(use)
    if use.ok is False:
        if not _ROUTINE_ERROR.search(use.result):
            error = _short_error(use.result)
            if all(e.error != error for e in open_errors):
                open_errors.append(_OpenError(key, error, turn))
                del open_errors[:-_MAX_OPEN_ERRORS]
        return []
    if use.ok is not True:
        return []
    learnings = []
    for error in [e for e in open_errors if e.key == key]:
        open_errors.remove(error)
        fix = error.explanation or "; ".join(error.actions) or f"re-running `{clip(use.command or use.summary, 100)}`"
        learnings.append(_learning(error.error, fix, turn))
    for error in open_errors:
        if len(error.actions) < 3:
            error.actions.append(f"running `{clip(use.command or use.summary, 60)}`")
    return learnings


def _learning(error: str, fix: str, turn: Turn) -> Candidate:
    content = clip(f"Error: {error} — fixed by: {clip(fix, 150)}", _LEARNING_MAX)
    return _candidate("learning", "pattern", content, CONFIDENCE["learning"], ("learning", "error-fix"), turn,
                      "past")


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


# --- session record --------------------------------------------------------------------------------------------

# "TODO" only in capitals: "todo list" is how Claude talks about its own tracker.
_FOLLOW_UP = re.compile(r"(?i:\bnext steps?\b|\bfollow[- ]?ups?\b|\bremaining\b)|\bTODO\b")
_MAX_COMMANDS = 20
_MAX_FOLLOW_UPS = 10


@dataclass(frozen=True)
class SessionRecord:
    session_id: str | None
    intent: str
    files_edited: tuple[str, ...]
    files_read: tuple[str, ...]
    commands: tuple[str, ...]
    outcome: str
    follow_ups: tuple[str, ...]
    started: str | None
    ended: str | None
    user_turns: int = 0
    assistant_turns: int = 0
    tool_errors: int = 0
    abandoned_turns: int = 0  # on branches the conversation was rewound past: left out of everything above
    failed_commands: tuple[str, ...] = ()  # commands whose last run failed (marked so in the text)

    def to_text(self) -> str:
        """A compact paragraph for storage: when, what was asked, what was done, how it ended, what is left."""
        when = _span(self.started, self.ended)
        parts = [f"Session{' ' + when if when else ''}{f' ({self.session_id})' if self.session_id else ''}."]
        if self.intent:
            parts.append(f"Intent: {self.intent}")
        if self.files_edited:
            parts.append(f"Files changed: {_list(self.files_edited, 12)}.")
        if self.files_read:
            parts.append(f"Files read: {_list(self.files_read, 8)}.")
        if self.commands:
            parts.append("Commands: " + "; ".join(f"`{c}`" + (" (failed)" if c in self.failed_commands else "")
                                                  for c in self.commands[:8])
                         + (f" (+{len(self.commands) - 8} more)" if len(self.commands) > 8 else "") + ".")
        if self.outcome:
            parts.append(f"Outcome: {self.outcome}")
        if self.follow_ups:
            parts.append("Follow-ups: " + "; ".join(f.rstrip(" .;") for f in self.follow_ups) + ".")
        if self.abandoned_turns:
            parts.append(f"Rewound: {self.abandoned_turns} turns of an abandoned branch left out.")
        return " ".join(_end_sentence(p) for p in parts)


def _end_sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _list(items, limit: int) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _span(started: str | None, ended: str | None) -> str:
    if not started:
        return ""
    start = started[:16].replace("T", " ")
    if not ended or ended == started:
        return start + " UTC"
    end = ended[11:16] if ended[:10] == started[:10] else ended[:16].replace("T", " ")
    return f"{start}–{end} UTC"


def _unique(items) -> list:
    seen = set()
    return [x for x in items if not (x in seen or seen.add(x))]


def session_record(turns: list[Turn]) -> SessionRecord | None:
    """Intent, files touched, commands, outcome and follow-ups of the main chain; None when nothing happened.
    A command whose last run failed is listed with "(failed)"."""
    abandoned = sum(1 for t in turns if t.abandoned and not t.is_sidechain)
    main = [t for t in turns if not t.is_sidechain and not t.abandoned]
    user_turns = [t for t in main if t.role == "user" and not t.is_compact_summary and t.text]
    assistant_turns = [t for t in main if t.role == "assistant"]
    if not user_turns and not any(t.tool_uses for t in assistant_turns):
        return None

    uses = [u for t in assistant_turns for u in t.tool_uses]
    edited = _unique(u.file_path for u in uses if u.name in EDIT_TOOLS and u.file_path)
    read = [p for p in _unique(u.file_path for u in uses if u.name in READ_TOOLS and u.file_path)
            if p not in edited]
    commands = _unique(clip(u.command, 120) for u in uses if u.command and u.command.strip())[:_MAX_COMMANDS]
    last_run = {clip(u.command, 120): u.ok for u in uses if u.command}  # the last run of each command decides

    intent = clip(user_turns[0].text, 200) if user_turns else ""
    texts = [t.text for t in assistant_turns if t.text and not t.is_compact_summary]
    outcome = _first_sentences(texts[-1], 300) if texts else ""

    follow_ups: list[str] = []
    todo_lists = [u.todos for u in uses if u.name == "TodoWrite"]
    if todo_lists:
        follow_ups += [t.content for t in todo_lists[-1] if t.status in ("pending", "in_progress")]
    for text in texts[-3:]:
        follow_ups += [clip(s.text, 200) for s in _sentences(text) if _FOLLOW_UP.search(s.text)]
    follow_ups = _unique(clip(f, 200) for f in follow_ups)[:_MAX_FOLLOW_UPS]

    stamps = [t.timestamp for t in main if t.timestamp]
    return SessionRecord(
        session_id=next((t.session_id for t in main if t.session_id), None),
        intent=intent,
        files_edited=tuple(edited),
        files_read=tuple(read),
        commands=tuple(commands),
        outcome=outcome,
        follow_ups=tuple(follow_ups),
        started=min(stamps) if stamps else None,
        ended=max(stamps) if stamps else None,
        user_turns=len(user_turns),
        assistant_turns=len(assistant_turns),
        tool_errors=sum(len(t.tool_errors) for t in main),
        abandoned_turns=abandoned,
        failed_commands=tuple(c for c in commands if last_run.get(c) is False),
    )
