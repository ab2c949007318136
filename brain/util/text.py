"""Plain-text scanning every layer shares: words, stopwords, sentences, one-line clips and speaker labels.

Written with str methods and translate tables, not `re`: the prompt hook scans text on every prompt, and importing
`re` (with enum, functools, ...) costs ~3 ms of a budget of 2.5 bare interpreter starts. Each scanner names the
regex it stands for; a regex's \\w is str.isalnum() or "_".
"""


class Blanks(dict):
    """A str.translate table turning every character outside a class into a space. It learns each character the
    first time it meets it, so building it costs nothing and non-ASCII text costs one test per distinct character."""

    def __init__(self, keep):
        super().__init__()
        self.keep = keep

    def __missing__(self, code):
        self[code] = value = code if self.keep(chr(code)) else 32
        return value


LETTERS_DIGITS = Blanks(str.isalnum)
WORD_CHARS = Blanks(lambda ch: ch.isalnum() or ch == "_")
UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_CONTROL = dict.fromkeys([*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029], " ")

# Words that say nothing about what a text is about (recall leaves them out of a prompt's words; gardening out of
# a memory's topic words).
STOPWORDS = frozenset("""a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing done down during each either else even ever every
few for from further get gets got had has have having he her here hers herself him himself his how i if in into is it
its itself just kind like me might mine more most much must my myself no nor not now of off on once one only or
other our ours ourselves out over own please same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up upon us very was we were what when where
whether which while who whom whose why will with within without would yes yet you your yours yourself yourselves
let lets tell say said know think thing things something anything way ok okay hi hello hey thanks thank really
s t d ll m re ve""".split())


# The letters re.IGNORECASE takes for ASCII ones: dotted capital I and dotless i for "i", long s, Kelvin sign.
_IGNORECASE_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def case_folded(text: str) -> str:
    """`text` lower-cased as re.IGNORECASE compares it with ASCII words ("ſunday" is "sunday", "nıght" is "night"):
    a literal scan of it finds every word such a pattern can match."""
    return text.lower() if text.isascii() else text.translate(_IGNORECASE_ASCII).lower()


def words(text: str) -> list:
    r"""The runs of letters and digits in `text` (regex [^\W_]+)."""
    return text.translate(LETTERS_DIGITS).split()


def one_line(text) -> str:
    """`text` on one line: control characters and runs of whitespace become single spaces."""
    return " ".join(str(text or "").translate(_CONTROL).split())


def clip(text, limit: int) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary with an ellipsis when cut."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


# A full stop after these does not end a sentence ("e.g. Postgres", "vs. MySQL").
_ABBREVIATIONS = frozenset("e.g. i.e. etc. vs. cf. approx. mr. mrs. ms. dr. st. no. fig.".split())
_ENDS = (".", "!", "?", "。", "！", "？")
_CLOSERS = "\"')]”’*_`"


def sentences(text: str) -> list:
    r"""`text` (whitespace collapsed) split after each word ending in . ! ? (or a closing quote or bracket after
    one), except after common abbreviations (regex split (?<=[.!?]["')\]]*)\s+ with those exceptions)."""
    parts, current = [], []
    for word in text.split():
        current.append(word)
        if word.rstrip(_CLOSERS).endswith(_ENDS) and word.lower() not in _ABBREVIATIONS:
            parts.append(" ".join(current))
            current = []
    if current:
        parts.append(" ".join(current))
    return parts


def first_sentence(text: str) -> str:
    """The first sentence of `text` (all of it when it has one sentence)."""
    found = sentences(text)
    return found[0] if found else ""


def speaker_label(text: str) -> tuple:
    r"""(label, rest) for text opening with a speaker label: one to three capitalised words and ": ", such as
    "Caroline: " or "Mary Ann Smith: " (regex ^([A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30}){0,2}): (?=\S));
    (None, text) otherwise."""
    start = 0
    for _ in range(3):
        if text[start:start + 1] not in UPPER:
            return None, text
        end = start + 1
        while end - start <= 30 and end < len(text) and (text[end].isalnum() or text[end] in "_'.-"):
            end += 1
        if text.startswith(": ", end) and not text[end + 2:end + 3].isspace() and end + 2 < len(text):
            return text[:end], text[end + 2:]
        if not text.startswith(" ", end) or (text[end - 1] == "." and text[start:end].lower() not in _ABBREVIATIONS):
            return None, text  # "Agreed. Decision: ..." is two sentences, not a speaker called "Agreed. Decision"
        start = end + 1
    return None, text


def without_label(text: str) -> str:
    r"""`text` without a leading label such as "Decision (Ana): " or "Correction: "
    (regex ^[A-Z][\w -]{0,30}(?: \([^)]{0,40}\))?: )."""
    if text[:1] not in UPPER:
        return text
    end = 1
    while end <= 30 and end < len(text) and (text[end].isalnum() or text[end] in "_ -"):
        end += 1
    for stop in range(end, 0, -1):  # the longest label first, as the regex backtracks
        if text.startswith(": ", stop):
            return text[stop + 2:]
        if text.startswith(" (", stop):
            close = text.find(")", stop + 2)
            if 0 <= close <= stop + 42 and text.startswith(": ", close + 1):
                return text[close + 3:]
    return text


# A captured turn: its words, then "[tools] " and one entry per tool call, "Name: detail" ("Bash: pytest -q",
# "Edit: values.yaml → maxReplicas: 8"), entries and an edit's added lines alike joined by "; " (capture/ingest.py).
TOOLS_LINE = "[tools] "


def tool_calls(text: str) -> tuple:
    """(what a turn said, its tool calls' entries) of a captured turn's text. An entry starts where "; " is followed
    by a tool's name and ":" (a CamelCase word, "Bash", "TodoWrite", or an MCP tool's mcp__ name); any other piece
    after "; " is a line the entry before it added ("Edit: .env → A=1; B=2" is one entry)."""
    said, mark, calls = text.partition(TOOLS_LINE)
    if not mark:
        return text, []
    entries = []
    for piece in calls.split("; "):
        name = piece.partition(":")[0]
        if entries and not (name.startswith("mcp__") or (name[:1] in UPPER and name.isalpha())):
            entries[-1] += "; " + piece
        else:
            entries.append(piece)
    return said.rstrip(), entries


_VALUE_GLUE = frozenset("_-")
_TIME_UNITS = frozenset("second minute hour day week month".split())
_SHORT_UNITS = frozenset("second minute hour day".split())
_ATTEMPTS = ("attempts", "times", "retries", "tries")


def holds_value(text: str, value: str) -> bool:
    """Whether `text` states `value` as a whole, any case: 8087 is not in 18087, staging.x.dev is not in
    api-staging.x.dev, and "Node 18" is also written node:18 or node@18 (but not Node 180 or Node 18.2)."""
    return value_span(text, value) is not None


def value_span(text: str, value: str):
    """(start, end) in `text` of the first place it states `value` as a whole (see holds_value), or None."""
    lowered, value = text.lower(), value.lower()
    subject, _, number = value.partition(" ")
    variants = [value]
    if number and number.replace(".", "").isdigit() and subject.isalpha():
        variants += [f"{subject}:{number}", f"{subject}@{number}", f"{subject} v{number}", f"{subject}:v{number}"]
    elif subject == "1" and number in _TIME_UNITS:  # "1 minute" is also said "every minute", "once a minute"
        variants += [f"every {number}", f"once a {number}", f"once an {number}"]
    elif number in _ATTEMPTS and subject.isdigit():  # "3 attempts" is also "3 times", "3 retries"
        variants += [f"{subject} {other}" for other in _ATTEMPTS if other != number]
    elif " = " in value:  # a setting: `max_connections = 10` is also written max_connections=10, (10), : 10
        name, _, setting = value.partition(" = ")
        variants += [f"{name}={setting}", f"{name}({setting})", f"{name}: {setting}"]
    if subject.isdigit() and number.isalpha() and number.endswith("s") and len(number) >= 5 \
            and number not in _ATTEMPTS and number.rstrip("s") not in _TIME_UNITS:
        # "10 replicas" is also an option: --replicas 10, --max-replicas=10, --num-workers 4 (not --min-replicas)
        variants += [f"--{prefix}{number}{sep}{subject}" for prefix in ("", "max-", "num-") for sep in " ="]
    if subject.isdigit() and number.rstrip("s") in _TIME_UNITS:  # "72 hours" is also Ruby's 72.hours
        variants.append(f"{subject}.{number}")
        unit = number.rstrip("s")
        if unit in _SHORT_UNITS:  # and a manifest's 72h
            variants.append(subject + number[0])
        if unit in ("second", "minute", "hour"):  # Go's 30 * time.Minute, ISO 8601's PT30M
            variants += [f"{subject} * time.{unit}", f"pt{subject}{unit[0]}"]
        elif unit in ("day", "week"):  # P7D
            variants.append(f"p{subject}{unit[0]}")
        variants.append(f"{unit}s={subject}")  # Python's timedelta(minutes=30)
        if value == "30 minutes":
            variants.append("half an hour")
    for variant in variants:
        at = lowered.find(variant)
        while at >= 0:
            before, after = lowered[at - 1:at], lowered[at + len(variant):at + len(variant) + 2]
            # a name after a dot is a method or field (`.max_connections(10)`); a value after one is part of another
            glued_before = before.isalnum() or before in _VALUE_GLUE or (before == "." and " = " not in value)
            glued_after = after[:1].isalnum() or after[:1] in _VALUE_GLUE or (after[:1] == "." and after[1:2].isalnum())
            if variant is not value and after[:1] == "-":  # "node:18-alpine" states Node 18
                glued_after = False
            if after[:1] in _VALUE_GLUE and after[1:2].isalnum() and value.isalpha() and len(value) >= 3:
                glued_after = False  # a tool's name before _ or - names one of its parts: rusoto_s3, celery-beat
            if not glued_before and not glued_after:
                return at, at + len(variant)
            at = lowered.find(variant, at + 1)
    if " = " in value:  # in prose: "the pool is now 20 (spring.datasource.hikari.maximum-pool-size)"
        return _setting_in_prose(lowered, *value.split(" = ", 1))
    return None


SWITCHES = frozenset("true false yes no on off enabled disabled".split())  # the values a switch takes


SETTING_REACH = 40  # characters between a setting's name and its value in prose, in one sentence...
SETTING_GAP_WORDS = 4  # ...with at most this many words between them, and no other number in the sentence


def _setting_in_prose(lowered: str, name: str, setting: str):
    """(start, end) of `setting` written as a whole word near `name` (a whole name, or the last part of a dotted
    one): in the same sentence, with no other number and few words between them ("now 20 (hikari.maximum-pool-size)",
    "maximum-pool-size is now 20"); None if it is not."""
    if not setting or " " in setting:
        return None
    at = lowered.find(name)
    while at >= 0:
        end = at + len(name)
        before, after = lowered[at - 1:at], lowered[end:end + 1]
        if not (before.isalnum() or before in _VALUE_GLUE or after.isalnum() or after in _VALUE_GLUE):
            start = max(0, at - SETTING_REACH)
            window = lowered[start:end + SETTING_REACH]
            for stop in (". ", "\n", "; "):  # the name's sentence only
                cut = window.rfind(stop, 0, at - start)
                if cut >= 0:
                    window, start = window[cut + len(stop):], start + cut + len(stop)
                cut = window.find(stop, end - start)
                if cut >= 0:
                    window = window[:cut]
            found = window.find(setting)
            while found >= 0:
                left, right = window[found - 1:found], window[found + len(setting):found + len(setting) + 2]
                between = window[found + len(setting):at - start] if start + found < at else window[end - start:found]
                # "from 8 to 12": a value the sentence moves away from is not the one it states, so the value must
                # be the sentence's only number (beside the name's own digits) and not follow "from" or "was"
                rest = window[:found] + " " + window[found + len(setting):]
                if not (left.isalnum() or left in "._-" or right[:1].isalnum() or right[:1] in _VALUE_GLUE
                        or (right[:1] == "." and right[1:2].isalnum())) \
                        and not any(ch.isdigit() for ch in rest.replace(name, "")) \
                        and len(words(between)) <= SETTING_GAP_WORDS \
                        and words(window[:found])[-1:] not in (["from"], ["was"], ["not"]):
                    return start + found, start + found + len(setting)
                found = window.find(setting, found + 1)
        at = lowered.find(name, at + 1)
    return None
