"""What a person's sentences ask to be kept: requests, corrections, preferences and decisions.

Each rule reads one sentence (`Sentence`, with the turn it is in: `Said`) and returns what to remember, or None.
The extractor (capture/extract.py) tries the request rules first, then the correction, preference and decision
rules, in the order of the tuples at the end of this module; the first that takes a sentence keeps it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from brain.capture.rules import Case, Family, rule
from brain.capture.rules.sentences import Sentence, capitalize, split_sentences, with_speaker, word_count
from brain.util.text import clip


@dataclass(frozen=True)
class Said:
    """The turn a sentence is in: all its sentences, and the assistant's turn just before it."""

    sentences: list = field(default_factory=list)
    previous: str = ""

    @property
    def answers_question(self) -> bool:
        """A reply to a question: "No, it's the eu bucket" then answers, it corrects nothing."""
        return self.previous.rstrip().rstrip("\"')*_ ").endswith("?")


def _each_sentence(find, case: Case):
    """A sentence rule on a case: what it finds in the first sentence of the text it takes."""
    said = Said(split_sentences(case.text), case.before)
    for sentence in said.sentences:
        found = find(sentence, said)
        if found:
            return found
    return None


REQUEST = Family("request", _each_sentence)
CORRECTION = Family("correction", _each_sentence)
PREFERENCE = Family("preference", _each_sentence)
DECISION = Family("decision", _each_sentence)


def _remainder(match: re.Match, sentence: Sentence) -> str:
    """The sentence's own words (original casing) from where the match's "rest" group starts."""
    return sentence.core[match.start("rest"):].strip(" -:,")


# --- requests --------------------------------------------------------------------------------------------------

_REMEMBER = (
    re.compile(r"^(?:please\s+)?remember\s*(?:that\s+|this\s*[:,-]\s*|[:,-]\s*)(?P<rest>.+)"),
    re.compile(r"^(?:can|could|would|will) you (?:please\s+)?remember (?:that\s+|this\s*[:,-]\s*)(?P<rest>.+)"),
    re.compile(r"^(?:i want you to|i'd like you to|i need you to|make sure (?:to|you)|be sure to) "
               r"remember (?:that\s+|this\s*[:,-]\s*)?(?P<rest>.+)"),
)
_NOTE = re.compile(r"^(?:please\s+)?(?:note that|note:|nb:?|keep in mind(?: that)?|for (?:future )?reference[,:]?)"
                   r"\s+(?P<rest>.+)")
_POLITE_ASK = re.compile(r"^(?:can|could|would|will) you\b")


def _what_follows(match: re.Match, sentence: Sentence) -> str | None:
    rest = _remainder(match, sentence)
    if _POLITE_ASK.match(sentence.body):  # "Can you remember that X?" asks to remember X
        rest = rest.rstrip(" ?")
    if word_count(rest) >= 3 and not rest.endswith("?"):
        return with_speaker(sentence, capitalize(rest))
    return None


@rule(REQUEST, catches=[Case("Remember that the staging database listens on port 5433.",
                             gives="The staging database listens on port 5433."),
                        "remember: deploys happen on Tuesdays only",
                        "Please remember this: the API key lives in the vault",
                        "Can you remember that our CI runs on self-hosted runners?",
                        "I want you to remember that the docs site is built with mkdocs."],
      leaves=["Can you remember how we configured the proxy?", "I remember when this used to be fast.",
              "Remember to run the migrations.", "Do you remember what port we used?"])
def remember_that(sentence: Sentence, said: Said) -> str | None:
    """"Remember that X" (also asked: "can you remember that X?"): X, in the sentence's own words."""
    for pattern in _REMEMBER:
        m = pattern.match(sentence.body)
        if m:
            return _what_follows(m, sentence)
    return None


@rule(REQUEST, catches=["Note that the cache is flushed every night at 2am.",
                        "Keep in mind that the legacy endpoint still serves mobile clients.",
                        "For reference, the billing service is owned by Dana."],
      leaves=["I'll note the cache size.", "Keep in mind?", "Noted, thanks."])
def note_that(sentence: Sentence, said: Said) -> str | None:
    """"Note that X", "keep in mind that X", "for reference, X": X."""
    m = _NOTE.match(sentence.body)
    return _what_follows(m, sentence) if m else None


# "store it in memory" is also how people talk about caches, so only "save"/"add" take a bare "it".
_SAVE = re.compile(
    r"\b(?:save|add)\s+(?:(?:this|that|it|these|the following)\s+)?(?:fact\s+)?(?:to|in|into)\s+"
    r"(?:your\s+|the\s+)?(?:long[- ]term\s+)?memory\b"
    r"|\b(?:store|keep|put|write)\s+(?:this|that|these|the following)\s+(?:to|in|into)\s+(?:your\s+)?"
    r"(?:long[- ]term\s+)?memory\b"
    r"|\bmemori[sz]e\s+(?:this|that|the following)\b"
)


@rule(REQUEST, catches=[Case("Save this to memory: the release branch is cut on Fridays.",
                             gives="The release branch is cut on Fridays."),
                        "The release manager is Priya. Please save this to memory.",
                        Case("Save this to memory.", before="The flaky test was caused by a shared temp dir.")],
      leaves=["We store the session tokens in memory for speed.", "Should I save this to memory?",
              "Save this to memory."])
def save_to_memory(sentence: Sentence, said: Said) -> str | None:
    """"Save this to memory: X" or "X. Save this to memory.": X; alone, what the assistant had just said."""
    save = _SAVE.search(sentence.body)
    if not save or (sentence.is_question and not _POLITE_ASK.match(sentence.body)):
        return None
    tail = sentence.core[save.end():]
    after = tail.split(":", 1)[1].strip() if ":" in tail else ""
    if word_count(after) >= 3:
        return with_speaker(sentence, capitalize(after))
    rest = " ".join(s.text for s in said.sentences if s is not sentence and not s.is_question)
    if word_count(rest) >= 3:
        return with_speaker(sentence, rest)
    if said.previous:
        return "Saved at the user's request: " + clip(said.previous, 400)
    return None


_INSTRUCTION = re.compile(
    r"^(?:and\s+|but\s+|also\s+)?(?:please\s+)?(?:you should\s+|you must\s+|make sure (?:to|you)\s+)?"
    r"(?P<word>always|never)\s+(?P<next>[\w'-]+)"
    r"|\bfrom now on\b|\bgoing forward\b|^(?:and\s+|but\s+|also\s+)?(?:please\s+)?(?:do not|don't) ever\b"
    r"|^(?:and\s+|but\s+|also\s+)?(?:please\s+)?(?:do not|don't)\s+\w+(?:[ \t]+\w+){0,4},[ \t]*ever\b"
)
# "Always good to hear", "Never saw it coming": chat, not instructions. An instruction's next word is a verb.
_NOT_INSTRUCTION_NEXT = frozenset(
    "mind again works work happens did does do was is are were had has have been seems fails gets got saw say said "
    "knew thought felt went came made took up good great nice fun here there a an the so such on in at for with "
    "about too more better happy glad ready enough one my your our their his her its".split()
)


def is_instruction(sentence: Sentence) -> bool:
    """Whether the sentence gives a standing rule: "always ...", "never ...", "from now on ..."."""
    m = _INSTRUCTION.search(sentence.body)
    if not m:
        return False
    if not m.group("word"):
        return True
    following = m.group("next") or ""
    return following not in _NOT_INSTRUCTION_NEXT and not (following.endswith("ed") and not following.endswith("eed"))


@rule(REQUEST, catches=["From now on, run the linter before every commit.", "Always use absolute imports in this repo.",
                        "Never push directly to main.", "Going forward, tag every release.",
                        "And don't touch the lockfile, ever."],
      leaves=["Never mind, it works now.", "Always good to hear!", "It never worked on Windows anyway.",
              "What should we do from now on?", "Never saw that coming.", "Don't know if it ever worked."])
def standing_instruction(sentence: Sentence, said: Said) -> str | None:
    """A standing rule ("always ...", "never ...", "from now on ..."): the sentence as said."""
    if sentence.is_question or not is_instruction(sentence) or word_count(sentence.text) < 3:
        return None
    return with_speaker(sentence, capitalize(sentence.text))


# --- corrections -----------------------------------------------------------------------------------------------

# Agreement and thanks read like "no, it's ..." / "actually that's ..." but correct nothing.
_AGREEMENT = re.compile(r"\b(?:that'?s|it'?s|this is|that is|it is)\s+(?:great|fine|perfect|good|ok|okay|nice|"
                        r"awesome|correct|right|true|cool)\b|\byou'?re right\b|\byou are right\b|"
                        r"\bthanks?\b|\bthank you\b|\bnever ?mind\b")


def _corrects_nothing(sentence: Sentence) -> bool:
    return sentence.is_question or bool(_AGREEMENT.search(sentence.body))


_LABELLED = re.compile(r"^correction\s*[:,-]")


@rule(CORRECTION, catches=["Correction: the meeting moved to Thursday."],
      leaves=["The correction was applied yesterday.", "Correction: thanks, that works."])
def labelled(sentence: Sentence, said: Said) -> bool:
    """"Correction: ..."."""
    return not _corrects_nothing(sentence) and bool(_LABELLED.search(sentence.body))


_CALLED_WRONG = re.compile(r"\b(?:that'?s|that is|this is|you'?re|you are|it'?s|it is)\s+(?:wrong|incorrect|not (?:"
                           r"right|correct|true|accurate))\b")


@rule(CORRECTION, catches=["That's wrong, the timeout is 30 seconds.",
                           "You're wrong about the default branch, it is trunk."],
      leaves=["Is that wrong?", "Something is wrong with the build.", "That's right, the timeout is 30 seconds."])
def called_wrong(sentence: Sentence, said: Said) -> bool:
    """"That's wrong", "you're wrong", "that's not right"."""
    return not _corrects_nothing(sentence) and bool(_CALLED_WRONG.search(sentence.body))


# "not X but Y" corrects a thing; "not now, but ...", "not only ... but also" say when or how much.
_NOT_BUT = re.compile(r"\bnot\s+(?!(?:only|just|merely|sure|certain|really|yet|too|that|exactly|today|tomorrow|now|"
                      r"then|here|there|always|much|many|quite|entirely|necessarily|immediately|soon|this\s+(?:week|"
                      r"time|month|sprint|year)|at\s+all|right\s+now|anymore)\b)"
                      r"[\w./:-]+(?:\s+[\w./:-]+){0,4},?\s+but\s+(?!also\b)\S")


@rule(CORRECTION, catches=["The queue is not Redis but RabbitMQ."],
      leaves=["It's not only faster but also smaller.", "I'm not sure but it might be the cache.",
              "Not this week, but it's next on the list.", "Not today, but soon."])
def not_this_but_that(sentence: Sentence, said: Said) -> bool:
    """"not X but Y"."""
    return not _corrects_nothing(sentence) and bool(_NOT_BUT.search(sentence.body))


_MEANT = re.compile(r"\bi meant\b|\bwhat i meant\b|\bi mean(?:t)? to say\b")


@rule(CORRECTION, catches=["I meant the billing service, not the auth service."],
      leaves=["I mean, it works.", "What did you mean by that?"])
def meant(sentence: Sentence, said: Said) -> bool:
    """"I meant ..."."""
    return not _corrects_nothing(sentence) and bool(_MEANT.search(sentence.body))


_ACTUALLY = re.compile(r"^actually\b(?!,?\s+(?:can|could|would|will|let's|let me|please|i think|never ?mind|nvm|"
                       r"thanks))"
                       r".*\b(?:is|are|was|were|it's|that's|they're|isn't|aren't|uses?|runs?|should|must|needs?|"
                       r"lives?|listens?|means?|called|named|not)\b")


@rule(CORRECTION, catches=[Case("Actually it's port 5433, not 5432.", before="Staging listens on 5432.")],
      leaves=[Case("Actually, can you also add a test?", before="Done."),
              Case("Actually it's port 5433.", before="Which port should it use?")])
def actually(sentence: Sentence, said: Said) -> bool:
    """"Actually it's X" answering a statement (after a question it is just the answer)."""
    return not said.answers_question and not _corrects_nothing(sentence) and bool(_ACTUALLY.search(sentence.body))


_NO_IT_IS = re.compile(r"^(?:no|nope|nah)\b[,.!]?\s+(?!(?:thanks|thank you|worries|problem|need|rush|it'?s (?:fine|ok|"
                       r"okay|good|alright)|that'?s (?:fine|ok|okay|good|alright)))(?:it'?s|it is|that'?s|that is|the|"
                       r"we|you|i|its|they|this|use|not)\b")


@rule(CORRECTION, catches=[Case("No, it's the eu-west bucket.", before="I uploaded it to the us-east bucket.")],
      leaves=[Case("No, thanks.", before="Shall I also add logging?"),
              Case("No, I haven't tried it yet.", before="Have you tried the new build?"),
              Case("No, it's fine as it is.", before="I renamed it.")])
def no_it_is(sentence: Sentence, said: Said) -> bool:
    """"No, it's X" answering a statement."""
    return not said.answers_question and not _corrects_nothing(sentence) and bool(_NO_IT_IS.search(sentence.body))


# --- preferences -----------------------------------------------------------------------------------------------

_PREFERENCE = re.compile(
    r"^(?P<lead>please\s+)?(?P<trigger>i prefer|i'd prefer|i would prefer|i like|i don'?t like|i do not like|"
    r"i dislike|i hate|i love|i'd rather|i would rather|please don'?t|please do not)\b\s*(?P<rest>.*)"
)
_PREFERENCE_INSIDE = re.compile(r"\b(?:i prefer|i'd rather|i would rather|i don'?t like|i do not like)\b")
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


@rule(PREFERENCE, catches=[Case("I prefer tabs over spaces in Makefiles.",
                                gives="User prefers tabs over spaces in Makefiles."),
                           Case("I like to keep my tests next to the code.",
                                gives="User: I like to keep my tests next to the code."),
                           "Please don't add emojis to commit messages."],
      leaves=["I like it.", "I prefer that.", "I love that you fixed it so fast.", "Do you prefer tabs?",
              "I'd like you to fix the login bug."])
def taste(sentence: Sentence, said: Said) -> str | None:
    """A sentence opening with a taste ("I prefer X", "I don't like X", "please don't X"): "User prefers X"."""
    if sentence.is_question:
        return None
    m = _PREFERENCE.match(sentence.body)
    if not m:
        return None
    rest = m.group("rest").strip()
    words = rest.split()
    trigger = m.group("trigger")
    if len(words) < 2 or (words[0] in _PRONOUN_START and len(words) < 4):
        return None  # "I like it", "I prefer that": nothing to remember without the context
    if trigger in ("i like", "i love") and words[0] in _NOT_TASTE_START:
        return None
    verb = _PREFERENCE_REWRITE.get(trigger)
    if verb is None:  # "please don't ...": keep the instruction as written
        return with_speaker(sentence, capitalize(sentence.text))
    if _FIRST_PERSON.search(rest):  # "User loves that it teaches me" would garble who is who
        return f"{sentence.speaker or 'User'}: {sentence.text}"
    return f"{sentence.speaker or 'User'} {verb} {_remainder(m, sentence)}"


@rule(PREFERENCE, catches=["Honestly I prefer pytest to unittest for everything."],
      leaves=["Honestly I prefer that.", "I prefer tabs over spaces in Makefiles.", "Would you rather use tabs?"])
def taste_inside(sentence: Sentence, said: Said) -> str | None:
    """A taste said inside a longer sentence ("Honestly I prefer X ..."), kept as said (a sentence opening with
    one is `taste`'s)."""
    if sentence.is_question or _PREFERENCE.match(sentence.body) or not _PREFERENCE_INSIDE.search(sentence.body):
        return None
    return with_speaker(sentence, sentence.text) if word_count(sentence.text) >= 5 else None


# --- decisions -------------------------------------------------------------------------------------------------

_DECIDED = re.compile(
    r"\b(?:let'?s go with|let'?s stick with|let'?s switch to|we decided|we'?ve decided|we have decided|"
    r"we'?ll use|we will use|we'?ll go with|we'?re going with|we are going with|we chose|i chose|i'?ve chosen|"
    r"i decided|i'?ve decided|i'?m going with|i'?ll go with)\b|^decision\s*:"
)
_AGREED = re.compile(r"\b(?:as (?:we )?agreed|we agreed|we'?ve agreed|we decided|we'?ve decided)\b|^decision\s*:")
_DECISION_LABEL = re.compile(r"(?i)^decision\s*:\s*")


def _decision_text(sentence: Sentence, agreed: bool) -> str:
    labels = (["agreed"] if agreed else []) + ([sentence.speaker] if sentence.speaker else [])
    label = f" ({', '.join(labels)})" if labels else ""
    return f"Decision{label}: {_DECISION_LABEL.sub('', sentence.text)}"


@rule(DECISION, catches=["Let's go with SQLite for the first version.", "We decided to drop Python 3.8 support.",
                         "We'll use GitHub Actions for the release pipeline.", "Decision: the CLI stays in click.",
                         "I chose the MIT license for this project."],
      leaves=["Should we go with Postgres?", "Let's go.", "We decided?", "Let's see what the logs say."])
def decided(sentence: Sentence, said: Said) -> str | None:
    """A person's choice ("let's go with X", "we decided to X", "Decision: X")."""
    if sentence.is_question or word_count(sentence.text) < 4 or not _DECIDED.search(sentence.body):
        return None
    return _decision_text(sentence, agreed=False)


@rule(DECISION, catches=[Case("As we agreed, the importer will skip files over 10 MB.",
                              gives="Decision (agreed): As we agreed, the importer will skip files over 10 MB.")],
      leaves=["I'll use a dictionary here for faster lookups.", "Have we agreed on the format?"])
def agreed(sentence: Sentence, said: Said) -> str | None:
    """The assistant stating what was agreed ("as we agreed, X"): a decision of both (an assistant's own plan is
    none)."""
    if sentence.is_question or word_count(sentence.text) < 4 or not _AGREED.search(sentence.body):
        return None
    return _decision_text(sentence, agreed=True)


# A request to change something; a decision once the assistant's next reply carries it out (extract.py).
_CHANGE_REQUEST = re.compile(r"^(?:(?:ok(?:ay)?|actually|please|then|also|and|now)[,!]?\s+)*(?:(?:move|make|change|"
                             r"set|switch|bump|upgrade|downgrade|rename|replace|use|increase|decrease|raise|lower|"
                             r"reduce|limit|pin|drop|remove|cut|shorten|extend|lengthen|halve|double|cap)\b|"
                             r"(?:run|schedule)\b.*\bevery\b)", re.IGNORECASE)  # "run the sync every six hours"


@rule(DECISION, catches=["Move the API to port 8090, the load balancer expects that.", "Make it 7 days.",
                         "Use vitest instead of jest.", "Run the sync every six hours."],
      leaves=["Moving on.", "Did you move the API?", "The API moved to 8090 last week.", "Run the tests."])
def change_request(sentence: Sentence, said: Said) -> bool:
    """A request to change something ("Move the API to port 8090", "Make it 7 days")."""
    return not sentence.is_question and word_count(sentence.text) >= 3 and bool(_CHANGE_REQUEST.match(sentence.body))


_VAGUE_OBJECT = re.compile(r"^(?:\w+\s+){0,3}?(?:move|make|change|set|bump|raise|lower|reduce|increase|decrease|drop|"
                           r"cut|put|take|turn|bring|scale)\s+"
                           r"(?:it|that|this|them|everything)\b", re.IGNORECASE)


@rule(DECISION, catches=["Make it 7 days.", "OK, drop it to 10 and add jemalloc."],
      leaves=["Make the hold 10 minutes.", "Move the API to port 8090.", "Move us to the official aws-sdk-s3."])
def vague_object(sentence: Sentence, said: Said) -> bool:
    """A change request whose object is a pronoun ("Make it 7 days"): the reply says what was changed."""
    return bool(_VAGUE_OBJECT.match(sentence.body))


# In the order the extractor tries them.
REQUEST_RULES = (remember_that, note_that, save_to_memory, standing_instruction)
CORRECTION_RULES = (labelled, called_wrong, not_this_but_that, meant, actually, no_it_is)
PREFERENCE_RULES = (taste, taste_inside)


def first_found(rules, sentence: Sentence, said: Said):
    return next((found for found in (find(sentence, said) for find in rules) if found), None)


def has_trigger(sentence: Sentence) -> bool:
    """Whether a sentence asks for something of its own (a request, a correction, a taste, a decision): then it
    does not join the short correction before it."""
    body = sentence.body
    return bool(any(p.match(body) for p in _REMEMBER) or _NOTE.match(body) or _SAVE.search(body)
                or _INSTRUCTION.search(body) or first_found(CORRECTION_RULES, sentence, Said())
                or _PREFERENCE.match(body) or _PREFERENCE_INSIDE.search(body) or _DECIDED.search(body))
