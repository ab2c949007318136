"""The one gate: is anything the store holds worth injecting for this prompt? Most prompts are about the work at
hand, not about memory, and a context of loose matches costs tokens and attention. The gate is passed in one of
a few ways a store shows it holds an answer, tried in order (`reason_to_inject`); when none holds, recall
returns nothing."""
from brain.recall import weights
from brain.recall.candidates import absent_idf, stating
from brain.recall.lexicon import idea


class Coverage:
    """How much of the prompt the candidates hold, measured by IDF weight: `share` (rowid -> share of the whole
    prompt's weight), `best` (the best row's share), and over only the words the store holds, itself or through
    their family (`present`: word -> IDF): `share_of_present`, and `absent_count`, the prompt words it never saw."""

    __slots__ = ("share", "best", "present", "share_of_present", "absent_count")

    def __init__(self, found, total: int):
        absent = absent_idf(total)
        self.share = coverage(found.matched, found.idf)
        self.present = {w: v for w, v in found.idf.items() if v < absent - 1e-9}  # what the store holds
        self.share_of_present = coverage(found.matched, self.present)
        self.best = max(self.share.values(), default=0.0)
        self.absent_count = len(found.idf) - len(self.present)


def reason_to_inject(conn, found, cover: Coverage, wants: set):
    """Why the candidates are worth injecting, or None when nothing is. The first of these that holds:
    1. "covered": one memory holds COVERAGE_MIN of the prompt's distinctive weight: it is about the same thing;
    2. "file": the prompt names a file memories are about;
    3. "open work": it asks what is left to do, and the project has open work recorded;
    4. "value stated": every word is common in the store, but it asks for a kind of value ("which Go version?" in
       a Go project) and memories holding its words state one;
    5. "on topic": it names what the store is full of, and a memory holds ON_TOPIC_COVERAGE_MIN of it, or one was
       made on a day it names;
    6. "what is known": words the store never saw do not veto (the person's words are not the memory's): the
       best memory holds most of what the store knows of the prompt (_answers_what_is_known);
    7. "two ideas": a memory holds two of the prompt's ideas the store knows, and the prompt has fewer words the
       store never saw than that;
    8. "value asked for": it asks for a kind of value and a memory holding two of its known ideas states one,
       even with one unknown word more than 7 allows.
    The last one reads search.db, so it is tried last."""
    if cover.best >= weights.COVERAGE_MIN:
        return "covered"
    if found.file_rows:
        return "file"
    if found.open_work:
        return "open work"
    if found.valued:
        return "value stated"
    if found.common and (cover.best >= weights.ON_TOPIC_COVERAGE_MIN or found.dated):
        return "on topic"
    if _answers_what_is_known(found.matched, cover):
        return "what is known"
    if _holds_two_known_words(found.matched, cover):
        return "two ideas"
    if _states_the_value_asked_for(conn, found.matched, cover, wants - {"todo"}):
        return "value asked for"
    return None


def coverage(matched: dict, idf: dict) -> dict:
    """rowid -> the share of the prompt's IDF weight (over the words in `idf`) the row holds; a word found only
    through its family counts at its family weight."""
    wanted = sum(idf.values())
    if not wanted:
        return {}
    out = {}
    for rowid, words in matched.items():
        held = {}
        for item in words:
            word, weight = (item[0], item[1]) if isinstance(item, tuple) else (item, 1.0)
            held[word] = max(held.get(word, 0.0), weight)
        out[rowid] = sum(idf.get(w, 0.0) * weight for w, weight in held.items()) / wanted
    return out


def _answers_what_is_known(matched, cover: Coverage) -> bool:
    """The gate for a prompt some of whose words the store has never seen: those words do not veto (the
    person's words are not the memory's), but then the best memory must cover most of what the store does know
    of the prompt, and either hold two of its words or the prompt must name as many words the store knows as not."""
    share_of_present, present = cover.share_of_present, cover.present
    if not present or not share_of_present:
        return False
    best = max(share_of_present, key=share_of_present.get)
    if share_of_present[best] < weights.KNOWN_COVERAGE_MIN:
        return False
    known = len(_known_ideas(matched.get(best, ())) & _ideas(present))
    return known >= 2 or (known == 1 and cover.absent_count <= len(present))


def _known_ideas(held) -> set:
    """The ideas of the prompt a row holds, through a word itself or its synonym (not a derivation); two prompt
    words the lexicon calls the same idea ("bump", "version") count once."""
    return {idea(item if isinstance(item, str) else item[0]) for item in held
            if isinstance(item, str) or item[2] == "synonym"}


def _holds_two_known_words(matched, cover: Coverage) -> bool:
    """A memory holding two ideas of the prompt (words or synonyms) that carry a fair share of what the store
    knows of the prompt, when the prompt has fewer words the store has never seen than that: an answer."""
    known_of_prompt = _ideas(cover.present)
    for rowid, share in cover.share_of_present.items():
        if share >= weights.COVERAGE_MIN:
            known = _known_ideas(matched.get(rowid, ())) & known_of_prompt
            if len(known) >= 2 and cover.absent_count < len(known):
                return True
    return False


def _states_the_value_asked_for(conn, matched, cover: Coverage, wanted) -> bool:
    """A prompt asking for a kind of value ("which port does the reverse proxy on the build server send traffic
    to?") and a memory stating a value of that kind that holds two of the prompt's ideas the store knows ("the ops
    proxy on the build box forwards to 9400"): an answer, even when the prompt has one word more the store never
    saw than _holds_two_known_words allows (the person's words for what the memory says in its own)."""
    if not wanted:
        return False
    known_of_prompt = _ideas(cover.present)
    share_of_present = cover.share_of_present
    rows = []
    for rowid in sorted(share_of_present, key=share_of_present.get, reverse=True)[:weights.VALUE_GATE_ROWS]:
        known = len(_known_ideas(matched.get(rowid, ())) & known_of_prompt)
        if known >= 2 and cover.absent_count <= known + 1:
            rows.append(rowid)
    return bool(stating(conn, rows, wanted))


def _ideas(words) -> set:
    return {idea(word) for word in words}
