"""Replace secret-shaped text with ``[REDACTED:<kind>]`` before it reaches memory.

``find_secrets(text)`` returns ``(kind, start, end)`` spans; ``redact(text)`` replaces them.

Why it looks the way it does:
- Hooks import this on every turn, so the module imports only ``re`` and every pattern is precompiled.
- Each rule names cheap substrings ("triggers"); a rule whose triggers are absent never runs its regex.
- Case-insensitive rules match a lower-cased copy with case-sensitive patterns (several times faster than
  ``re.IGNORECASE``) and read values back from the original by offset.
- Patterns start with a literal where possible, and every repeat is bounded or runs over a class the next
  token cannot extend, so adversarial input (100k "a", "password=" repeated) stays linear.
- Assignment values are judged in Python: empty values, variable references (``${X}``, ``$X``, ``self.x``,
  calls), placeholders (``<token>``, ``***``, ``None``) and type names (``password: str``) are not secrets.
- Existing ``[REDACTED:...]`` markers are never touched and redaction repeats until nothing changes, so
  ``redact(redact(x)) == redact(x)``.
"""

import re

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9_]{1,40}\]")

# Earlier wins when spans of different kinds overlap (the union is redacted as one span).
KINDS = (
    "private_key", "aws_access_key", "aws_secret_key", "github_token", "gitlab_token", "anthropic_key",
    "openai_key", "slack_token", "stripe_key", "jwt", "url_credentials", "basic_auth", "bearer",
    "password", "api_key", "token", "secret",
)
_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_TOKEN_CHARS = _WORD | frozenset("_-")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _starts_token(text, i):
    """True when position i is not glued to a preceding token character ("task-sk-..." is not a key)."""
    return i == 0 or text[i - 1] not in _TOKEN_CHARS


# --- judging values --------------------------------------------------------------------------------------

# Lower-case words that stand for "no value here", or type names from annotations (`password: str`).
_PLACEHOLDER_WORDS = frozenset("""
none null nil undefined true false empty unset redacted hidden masked omitted changeme todo tbd n/a na
str string bytes int integer number bool boolean any unknown object optional secretstr char varchar text
required yes no off on env placeholder example dummy
""".split())
_PLACEHOLDER_RE = re.compile(
    r"""(?xs)
    \$.*                                   # $VAR ${VAR} $(cmd): the shell expands these
    | %\w+% | %\(\w+\)[a-z]                 # %VAR% (Windows), %(name)s
    | <[^<>]*> | \{\{.*\}\} | \{[\w.]*\}      # <your-token>, {{ template }}, {format_field}
    | \[REDACTED.*                           # our own marker
    | (?:process\.env|os\.environ|os\.getenv)\b.*
    """)
_MASK_RE = re.compile(r"[*xX•.\-_#?]+")             # "****", "xxxx", "...", "___"
_DOTTED_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")   # self.password, settings.API_KEY
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_SEPARATORS_RE = re.compile(r"[_\-./]")
_CHAR_CLASSES = (re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]"))


def _is_placeholder(value):
    """True for values that are clearly not a secret: empty, masks, variable references, type names."""
    v = value.strip()
    if not v or _MASK_RE.fullmatch(v) or _PLACEHOLDER_RE.fullmatch(v) or v.lower() in _PLACEHOLDER_WORDS:
        return True
    return v.isdigit() and len(v) < 6               # counts and limits, not credentials


def _is_reference(value, key_word):
    """An unquoted value that is code, not a literal: a call, attribute access, or a variable named after
    the key (`api_key=API_KEY`, `password=db_password`)."""
    if "(" in value or _DOTTED_RE.fullmatch(value):
        return True
    return (len(key_word) >= 5 and _IDENTIFIER_RE.fullmatch(value) is not None
            and key_word in value.lower().replace("-", "_"))


def _looks_random(value):
    """Machine-made strings: long, mixed character classes, varied, and not made of words."""
    if len(value) < 16:
        return False
    classes = sum(1 for char_class in _CHAR_CLASSES if char_class.search(value))
    if classes < 2 or len(set(value)) < min(10, len(value) // 2):
        return False
    # "user_profile_cache_v2" is words; a random key almost never splits into long single-case letter runs.
    wordy = sum(len(p) for p in _WORD_SEPARATORS_RE.split(value)
                if len(p) >= 3 and p.isalpha() and (p.islower() or p.isupper() or p.istitle()))
    return wordy * 2 < len(value)


# --- tokens with a recognisable shape --------------------------------------------------------------------

def _shape_finder(kind, pattern, *, group=0, boundary=True, check=None, on_lower=False):
    """Finder for a token shape. boundary: reject matches glued to a longer word; check(match) can veto;
    group: the part that is redacted; on_lower: the (lower-case) pattern runs on the lower-cased copy."""
    compiled = re.compile(pattern)

    def find(text, lower):
        for m in compiled.finditer(lower if on_lower else text):
            if boundary and not _starts_token(text, m.start()):
                continue
            if check is not None and not check(m):
                continue
            yield (kind, *m.span(group))
    return find


_PRIVATE_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")


def _find_private_keys(text, lower):
    pos = 0
    while (begin := _PRIVATE_BEGIN.search(text, pos)) is not None:
        end = _PRIVATE_END.search(text, begin.end())
        # An unterminated block (a truncated paste) is redacted to the end: its tail is still key material.
        pos = end.end() if end else len(text)
        yield "private_key", begin.start(), pos


_find_aws_access = _shape_finder("aws_access_key", r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_find_aws_secret = _shape_finder(
    "aws_secret_key",
    r"(?:secret_?access_?key|aws_?secret_?(?:access_?)?key)\\?[\"']?[ \t]{0,8}[:=][ \t]{0,8}\\?[\"']?"
    r"([a-z0-9/+]{40})(?![a-z0-9/+=])",
    group=1, boundary=False, on_lower=True)
_find_github = _shape_finder("github_token", r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}")
_find_gitlab = _shape_finder(
    "gitlab_token", r"gl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*")
_find_anthropic = _shape_finder("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}")
# "sk-" also begins slugs ("sk-learn-tutorial-notes"), so what follows the prefix must look random.
_find_openai = _shape_finder(
    "openai_key", r"sk-(?!ant-)(?:(?:proj|svcacct|admin)-)?([A-Za-z0-9_-]{20,})",
    check=lambda m: _looks_random(m.group(1)))
_find_slack_token = _shape_finder("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,}")
_find_slack_hook = _shape_finder(
    "slack_token", r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{8,})",
    group=1, boundary=False)
_find_stripe = _shape_finder("stripe_key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,}")
# The boundary sits inside the pattern here: "eyJeyJeyJ..." must not restart a long scan at every "eyJ".
_find_jwt = _shape_finder(
    "jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", boundary=False)
_find_url_credentials = _shape_finder(
    "url_credentials", r"://([^\s:/?#@\[\]]{1,256}):([^\s/?#@]{1,256})@", group=2, boundary=False,
    check=lambda m: not _is_placeholder(m.group(2)))


# --- authorization headers -------------------------------------------------------------------------------

_AUTH_HEADER = re.compile(
    r"authorization\\?[\"']?\]?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*(bearer|basic|token)[ \t]+([^\s\"'`<>\\,;]{1,4096})")
_BEARER = re.compile(r"bearer[ \t]+([a-z0-9._~+/=-]{20,4096})")


def _find_auth_headers(text, lower):
    for m in _AUTH_HEADER.finditer(lower):
        value = text[m.start(2):m.end(2)]
        if len(value) >= 8 and not _is_placeholder(value):
            yield ("basic_auth" if m.group(1) == "basic" else "bearer"), m.start(2), m.end(2)


def _find_bearer_tokens(text, lower):
    # Outside an Authorization header "Bearer" is often prose; only long machine-made values count.
    for m in _BEARER.finditer(lower):
        value = text[m.start(1):m.end(1)]
        if _starts_token(text, m.start()) and (value.count(".") == 2 or _looks_random(value)):
            yield "bearer", m.start(1), m.end(1)


# --- key = value assignments -----------------------------------------------------------------------------

_ASSIGNMENT = re.compile(
    r"""(?x)
    (?P<word>pass(?:phrase|word|wd)?|secret|token|api[_-]?key|key)
    (?P<keyquote>\\?["'])?
    [ \t]{0,8} (?P<sep>:=|=>|==|=|:(?!:)) [ \t]{0,8}
    (?:
        \\?" (?P<dq>[^"\n]{0,1024}?) \\?"          # "value" (also \"value\" inside JSON-encoded text)
      | \\?' (?P<sq>[^'\n]{0,1024}?) \\?'
      | (?P<bare>[^\s"'`,;&<>\\\[\](){}=:]{0,1024})  # shell, code, query strings (see below)
    )
    """
)
_KEY_NAME_CHARS = _WORD | frozenset("_.-")
# Short words must start a name part: "monkey=", "bypass=" are not credentials, "dbPass=", "api_key=" are.
_NEEDS_BOUNDARY = frozenset(("pass", "key", "apikey", "api_key", "api-key"))
_LINE_PREFIX_RE = re.compile(r"[ \t]*(?:export[ \t]+|[-*#][ \t]*|//[ \t]*)?")
_NON_SPACE_RUN = re.compile(r"\S{0,1024}")


def _assignment_kind(word, key_name):
    """(kind, strong) from the key's last word: strong keys redact any real value, weak ones (a plain
    *_KEY such as CACHE_KEY) only random-looking values."""
    if word.startswith("pass"):
        return "password", True
    if word == "token":
        return "token", True
    if word.startswith("api"):
        return "api_key", True
    return "secret", word == "secret" or "secret" in key_name or "private" in key_name


def _starts_word_or_camel(text, i):
    if i == 0 or text[i - 1] not in _WORD:
        return True
    return text[i].isupper() and not text[i - 1].isupper()    # apiKey, dbPass


def _at_line_start(text, i):
    """Only indentation, a list marker, a comment marker or `export` precedes position i on its line."""
    line_start = text.rfind("\n", max(0, i - 80), i) + 1
    if line_start == 0 and i > 80:
        return False
    return _LINE_PREFIX_RE.fullmatch(text, line_start, i) is not None


def _find_assignments(text, lower):
    pos = 0
    while (m := _ASSIGNMENT.search(lower, pos)) is not None:
        # Resume after the separator, not after the value: a rejected value ("token: password=hunter22")
        # can itself hold an assignment.
        pos = m.end("sep")
        found = _judge_assignment(text, lower, m)
        if found:
            yield found


def _judge_assignment(text, lower, m):
    """(kind, start, end) of the value if this key = value match holds a secret, else None."""
    word_start, word = m.start("word"), m.group("word")
    if word in _NEEDS_BOUNDARY and not _starts_word_or_camel(text, word_start):
        return None
    key_start = word_start
    while key_start > 0 and word_start - key_start < 64 and text[key_start - 1] in _KEY_NAME_CHARS:
        key_start -= 1
    kind, strong = _assignment_kind(word, lower[key_start:word_start])
    quoted = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else None
    if quoted:
        start, end = m.span(quoted)
    else:
        start, end = m.span("bare")
        line_key = _at_line_start(text, key_start)
        # A bare value stops at "=" and ":" so "key=key=key=..." cannot make every match rescan the rest of
        # the line; in .env and YAML lines the value runs to the next space (`DB_PASSWORD=p@ss;w=rd`).
        if line_key:
            end = _NON_SPACE_RUN.match(text, end).end()
        end = start + len(text[start:end].rstrip(".,;:!?"))
        if _is_reference(text[start:end], word.replace("-", "_")):
            return None
        # "Note the token: it expires": a bare value after ':' counts only for keys at a line start.
        if m.group("sep") == ":" and not m.group("keyquote") and not line_key:
            return None
    value = text[start:end]
    if len(value) < 4 or _is_placeholder(value) or (not strong and not _looks_random(value)):
        return None
    return kind, start, end


# --- putting it together ---------------------------------------------------------------------------------

# (finder, triggers, triggers_are_lower_case): a finder runs only if one of its triggers occurs in the text
# (in its lower-cased copy for lower-case triggers).
_RULES = (
    (_find_private_keys, ("PRIVATE KEY",), False),
    (_find_aws_access, ("AKIA", "ASIA"), False),
    (_find_aws_secret, ("secret_access", "secretaccess", "aws_secret", "awssecret"), True),
    (_find_github, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), False),
    (_find_gitlab, ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-"), False),
    (_find_anthropic, ("sk-ant-",), False),
    (_find_openai, ("sk-",), False),
    (_find_slack_token, ("xox",), False),
    (_find_slack_hook, ("hooks.slack.com",), False),
    (_find_stripe, ("_live_", "_test_", "whsec_"), False),
    (_find_jwt, ("eyJ",), False),
    (_find_url_credentials, ("://",), False),
    (_find_auth_headers, ("authorization",), True),
    (_find_bearer_tokens, ("bearer",), True),
    (_find_assignments, ("pass", "secret", "token", "key"), True),
)


def find_secrets(text):
    """Return non-overlapping ``(kind, start, end)`` spans of secrets in text, sorted by start."""
    if not text:
        return []
    lower = text.lower()
    if len(lower) != len(text):         # a few non-ASCII letters change length; offsets must line up
        lower = text.translate(_ASCII_LOWER)
    spans = []
    for finder, triggers, lower_case in _RULES:
        haystack = lower if lower_case else text
        if any(t in haystack for t in triggers):
            spans.extend(finder(text, lower))
    if not spans:
        return []
    spans.sort(key=lambda s: (s[1], -s[2]))
    if "[REDACTED:" in text:
        # Before merging, so a quoted value that spans a marker cannot drag a real secret out with it.
        spans = _drop_overlapping(spans, [m.span() for m in MARKER_RE.finditer(text)])
    return _merge(spans)


def _merge(spans):
    """Union overlapping spans (sorted by start); the highest-priority kind among them names the union."""
    merged = []
    for kind, start, end in spans:
        if start >= end:
            continue
        if merged and start < merged[-1][2]:
            last_kind, last_start, last_end = merged[-1]
            best = kind if _PRIORITY[kind] < _PRIORITY[last_kind] else last_kind
            merged[-1] = (best, last_start, max(end, last_end))
        else:
            merged.append((kind, start, end))
    return merged


def _drop_overlapping(spans, markers):
    """Leave existing markers alone: drop spans that overlap one (both sorted by start; one linear walk)."""
    kept, i = [], 0
    for span in spans:
        while i < len(markers) and markers[i][1] <= span[1]:
            i += 1
        if i < len(markers) and markers[i][0] < span[2]:
            continue
        kept.append(span)
    return kept


def _redact_once(text):
    out, pos = [], 0
    for kind, start, end in find_secrets(text):
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def redact(text):
    """Return text with every secret replaced by ``[REDACTED:<kind>]``; idempotent."""
    # A new marker can change what its neighbours look like (a word boundary, a line start), so repeat to a
    # fixed point. Each pass only shrinks the unredacted text, so this ends; usually after one or two passes.
    for _ in range(8):
        redacted = _redact_once(text)
        if redacted == text:
            break
        text = redacted
    return text
