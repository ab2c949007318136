"""Secrets recognised by their shape alone, and how a value is judged: the finders `redact` runs besides key=value.

Two families here, each built for the kind rather than for a list of examples (command lines are in
brain/safety/commands.py, tokens standing alone in brain/safety/token_shape.py):
- service tokens: a vendor prefix (`AIza`, `SG.`, `npm_`, `hf_`, `shpat_`, `dop_v1_`, ...) followed by a body of the
  vendor's alphabet and length (brain/safety/families.py; one table, one scan for long tokens, a dict lookup per
  token);
- URLs: credentials in the user part with or without a user (`redis://:pw@host`, `https://<token>@host`), secret
  query parameters (`sig=`, `X-Amz-Signature=`, `access_token=`), and webhook paths (Discord, Slack, Teams, ...).

Each finder yields `(kind, start, end)` spans; every repeat is bounded or runs over a class the next token cannot
extend, and a line or URL is examined once, so adversarial input stays linear (tests/test_redact.py).
"""
import re

from brain.safety import families, triggers

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
TOKEN_CHARS = _WORD | frozenset("_-")
_HEX = frozenset("0123456789abcdef")


def starts_token(text, i):
    """True when position i is not glued to a preceding token character ("task-sk-..." is not a key)."""
    return i == 0 or text[i - 1] not in TOKEN_CHARS


# --- judging values --------------------------------------------------------------------------------------

# Lower-case words that stand for "no value here", or type names from annotations (`password: str`).
_PLACEHOLDER_WORDS = frozenset("""
none null nil undefined true false empty unset redacted hidden masked omitted changeme todo tbd n/a na
str string bytes int integer number bool boolean any unknown object optional secretstr char varchar text
required yes no off on env placeholder example dummy prompt stdin password passwd pass secret pwd
""".split())
_PLACEHOLDER_RE = re.compile(
    r"""(?xs)
    \$\{.*\} | \$\(.*\) | \$\{?[A-Za-z_][A-Za-z0-9_]*\}?   # $VAR ${VAR} $(cmd): the shell expands these
    | %\w+% | %\(\w+\)[a-z]                 # %VAR% (Windows), %(name)s
    | <[^<>]*> | \{\{.*\}\} | \{[\w.]*\}      # <your-token>, {{ template }}, {format_field}
    | \[REDACTED.*                           # our own marker
    | (?:process\.env|os\.environ|os\.getenv)\b.*
    | (?:your|my|the)(?:[-_][a-z]+)+ | your[a-z]*   # your_api_key, YOUR-TOKEN, my-password, YOURAPIKEY
    | (?<![a-z_-])[a-z_-]*(?:here|placeholder|example|sample|dummy|fake|xxxx)[a-z_-]*   # (letters only: not a real key)
    """, re.IGNORECASE)
_MASK_RE = re.compile(r"[*xX•.\-_#?0]+")            # "****", "xxxx", "...", "___", "0000"
_CHAR_CLASSES = (re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]"))
_WORD_SEPARATORS_RE = re.compile(r"[_\-./]")
_CAMEL_WORD_RE = re.compile(r"[A-Z]?[a-z]{2,}")  # "Clear", "Text", "Password"


# Public halves that vendors mark as such: Stripe's and Clerk's publishable keys, Mapbox's public tokens, Supabase's
# publishable key.
PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.eyJ", "sb_publishable_")


_VENDOR_PREFIX_RE = re.compile(r"(?:[a-z][a-z0-9]{0,11}[_-]){1,3}")


def is_placeholder(value):
    """True for values that are clearly not a secret: empty, masks, variable references, type names, the
    "YOUR_API_KEY" family of stand-ins, vendors' documented examples (AWS's ...EXAMPLE and ...EXAMPLEKEY) and keys
    their vendor publishes as public."""
    v = value.strip()
    if v.startswith(("base64:", "hex:")):  # an encoding's name before the value (Laravel's APP_KEY=base64:...)
        v = v.partition(":")[2]
    if not v or _MASK_RE.fullmatch(v) or _PLACEHOLDER_RE.fullmatch(v) or v.lower() in _PLACEHOLDER_WORDS:
        return True
    if v.endswith(("EXAMPLE", "EXAMPLEKEY")) or v.startswith(PUBLIC_PREFIXES):
        return True
    masked = _VENDOR_PREFIX_RE.match(v)  # sk_live_********: a vendor's prefix before a mask
    if masked and masked.end() < len(v) and _MASK_RE.fullmatch(v[masked.end():]):
        return True
    return v.isdigit() and len(v) < 6               # counts and limits, not credentials


def looks_random(value, min_length=16):
    """Machine-made strings: long, mixed character classes, varied, and not made of words."""
    if len(value) < min_length:
        return False
    classes = sum(1 for char_class in _CHAR_CLASSES if char_class.search(value))
    if classes < 2 or len(set(value)) < min(10, len(value) // 2):
        return False
    # "user_profile_cache_v2" is words; a random key almost never splits into long single-case letter runs.
    wordy = sum(len(p) for p in _WORD_SEPARATORS_RE.split(value)
                if len(p) >= 3 and p.isalpha() and (p.islower() or p.isupper() or p.istitle()))
    if wordy * 2 >= len(value):
        return False
    # CamelCase words ("ClearTextPassword"): no digit, and nearly every letter in a capitalised word
    words = [w for w in _CAMEL_WORD_RE.findall(value) if sum(c in "aeiouAEIOU" for c in w) >= len(w) / 4]
    return any(c.isdigit() for c in value) or sum(map(len, words)) < 0.8 * len(value)


def is_hex(value) -> bool:
    return bool(value) and _HEX.issuperset(value.lower())


def looks_like_password(value) -> bool:
    """A short credential typed by a person: not a word, a number, a path or a stand-in."""
    if len(value) < 6 or len(value) > 128 or is_placeholder(value) or looks_like_path(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "-_." for c in value)
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (letters and digits) or symbols or mixed


def looks_like_path(value) -> bool:
    if value.startswith("/") and value.count("/") < 3 and ("+" in value or value.endswith("=")):
        return False  # base64 that starts with "/" ("/HTi6kw++E5Cx…==")
    return value.startswith(("/", "~", "./", "../", "\\")) or "://" in value or value[1:3] == ":\\"


# --- service tokens: a prefix and a body ------------------------------------------------------------------

# The vendor table (brain/safety/families.py) and a shape that is no prefix: a Discord bot token (base64 of the
# bot's id, whose first digit makes it start with one of triggers.DISCORD_STARTS).
SERVICE_TOKENS = families.TOKENS + tuple(
    (p, "discord_token", r"[A-Za-z0-9_-]{21,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}", "random")
    for p in triggers.DISCORD_STARTS)
# Beyond the table: a vendor we do not list, whose prefix still says what it is ("pscale_tkn_…", "lin_oauth_…",
# "acme_api_…"): one of these words in the prefix, then a machine-made body.
GENERIC_PREFIX_WORDS = frozenset(("tkn", "token", "tok", "key", "secret", "sec", "pat", "api", "auth", "oauth",
                                  "pw", "pwd", "pass", "cred", "sk", "access", "refresh", "bearer"))
_GENERIC_TOKEN = re.compile(r"([a-z][a-z0-9]{1,11}(?:[_-][a-z0-9]{1,11}){0,3})[_-]([A-Za-z0-9]{20,512})(?![A-Za-z0-9])")
_AFTER_TOKEN = r"(?![A-Za-z0-9])"  # ("-" or "_" may follow: "session-ghp_…-155")
_DOTTED_PART = re.compile(r"\.[A-Za-z0-9_-]{6,512}(?![A-Za-z0-9_-])")
MIN_TOKEN = 14  # the shortest token of the table (an xoxb- Slack token) has 15 characters
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LONG_RUN = re.compile(r"[A-Za-z0-9_.\-]{%d,}" % MIN_TOKEN)
_BY_START = {}  # first two characters -> [(prefix, kind, body pattern, check)], longest prefix first
_ODD = []  # prefixes with a character a run of token characters does not hold ("1//0", "AstraCS:"): found by name
for _entry in sorted(SERVICE_TOKENS, key=lambda e: -len(e[0])):
    _BY_START.setdefault(_entry[0][:2], []).append(_entry)
    if not _RUN_CHARS.issuperset(_entry[0]):
        _ODD.append(_entry[0])
_COMPILED = {}  # prefix -> its whole pattern, compiled the first time a text holds the prefix (hooks load this)


def _pattern(prefix, body):
    pattern = _COMPILED.get(prefix)
    if pattern is None:
        pattern = _COMPILED[prefix] = re.compile(re.escape(prefix) + "(?:" + body + ")" + _AFTER_TOKEN)
    return pattern


assert all(e[0] in triggers.TABLE_PREFIXES or e[0] in triggers.DISCORD_STARTS for e in SERVICE_TOKENS), \
    "a prefix is missing a trigger"


def has_long_word(text) -> bool:
    """Whether some whitespace-separated word is MIN_TOKEN characters or longer: every token of the table is,
    and prose mostly is not, so this one cheap split spares most text the scan below."""
    return triggers.has_long_word(text, MIN_TOKEN)


_GLUED = re.compile(r"[-_.](?=" + "|".join(re.escape(p) for p in families.GLUED) + ")")
_GLUED_MIN_RUN = 30  # shorter runs cannot hold a word, a separator and a whole token
_HEX32 = re.compile(r"(?<![A-Za-z0-9])[a-f0-9]{32}(?![A-Za-z0-9])")


def _token_starts(text, run):
    yield run.start()
    if run.end() - run.start() >= _GLUED_MIN_RUN:
        for m in _GLUED.finditer(text, run.start() + 1, run.end()):
            yield m.end()


def find_service_tokens(text, lower):
    # Each run of token characters is a candidate; its first two characters pick the prefixes to try.
    for run in _LONG_RUN.finditer(text):
        found = False
        for pos in _token_starts(text, run):
            for span in _token_at(text, pos):
                found = True
                yield span
        if not found:
            yield from _generic_token(text, run.start())
    for prefix in _ODD:  # ("1//0…", "AstraCS:…", "access_token$production$…": not one run of token characters)
        at = text.find(prefix)
        while at >= 0:
            if starts_token(text, at):
                yield from _token_at(text, at)
            at = text.find(prefix, at + len(prefix))


def _generic_token(text, pos):
    m = _GENERIC_TOKEN.match(text, pos)
    if m is None:
        return
    words = set(m.group(1).replace("-", "_").split("_"))
    body = m.group(2)
    if words & GENERIC_PREFIX_WORDS and (is_hex(body) and len(body) >= 32 or looks_random(body, min_length=20)
                                         and sum(1 for c in _CHAR_CLASSES if c.search(body)) == 3):
        end = m.end()
        while (part := _DOTTED_PART.match(text, end)) is not None:  # the token's other segments ("….TUrtEJ.PJJF…")
            end = part.end()
        yield "service_token", pos, end


def _token_at(text, pos):
    """The table's token starting at `pos`, if any (the longest prefix that matches decides)."""
    for prefix, kind, body, check in _BY_START.get(text[pos:pos + 2], ()):
        token = _pattern(prefix, body).match(text, pos) if text.startswith(prefix, pos) else None
        if token is None:
            continue
        body = token.group()[len(prefix):]
        if is_placeholder(body):
            return  # a vendor's documented example (AKIAIOSFODNN7EXAMPLE)
        if check is None or is_hex(body) or looks_random(body, min_length=10):
            yield kind, pos, token.end()
            if prefix == "AC":  # an account SID: its auth token (32 hex digits) is usually written next
                after = _HEX32.search(text, token.end(), token.end() + 120)
                if after:
                    yield kind, after.start(), after.end()
        return


_TELEGRAM = re.compile(r"[0-9]{8,10}:AA[A-Za-z0-9_-]{32,34}(?![A-Za-z0-9_-])")
_AZURE_CLIENT_SECRET = re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"
                                  r"(?![A-Za-z0-9_~.-])")
# Tokens whose mark is in the middle: Terraform Cloud (`<14>.atlasv1.<60+>`), Mailchimp (`<32 hex>-us12`), Azure
# DevOps personal access tokens (84 characters, "AZDO" at 76-79). (infix, how far back the token starts, pattern)
_INFIX_TOKENS = ((".atlasv1.", 14, re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}")),
                 ("-us", 32, re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])")),
                 ("AZDO", 76, re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])")))


def find_infix_tokens(text, lower):
    for infix, back, pattern in _INFIX_TOKENS:
        at = text.find(infix)
        while at >= 0:  # from each infix back to where such a token would start, then one anchored match
            m = pattern.match(text, max(0, at - back))
            if m:
                yield "service_token", m.start(), m.end()
            at = text.find(infix, at + len(infix))


_VENDOR_PREFIX = re.compile(r"(?:[a-z][a-z0-9]{0,11}[_-]){1,3}")


def has_vendor_prefix(value) -> bool:
    """Whether `value` starts like a vendor's token or a service's id: lower-case words and a separator ("sk_live_",
    "msg_", "cs_test_")."""
    return _VENDOR_PREFIX.match(value) is not None


def find_telegram(text, lower):
    # From each ":AA" back over the bot's id (8 to 10 digits), then forward over the token.
    at = text.find(":AA")
    while at >= 0:
        start = at
        while start > 0 and at - start < 10 and text[start - 1].isdigit():
            start -= 1
        if at - start >= 8 and (start == 0 or not text[start - 1].isalnum()):
            m = _TELEGRAM.match(text, start)
            if m:
                yield "telegram_token", m.start(), m.end()
        at = text.find(":AA", at + 3)


def find_azure_client_secrets(text, lower):
    for m in _AZURE_CLIENT_SECRET.finditer(text):
        if looks_random(m.group(), min_length=16):
            yield "azure_secret", m.start(), m.end()


# --- URLs -------------------------------------------------------------------------------------------------

_URL_BODY = re.compile(r"[^\s\"'`<>\\]{1,4096}")
# Query parameters whose value is a secret (lower case), and the kind each is redacted as.
QUERY_SECRETS = {
    "sig": "azure_sas", "sas": "azure_sas", "sharedaccesssignature": "azure_sas", "signature": "url_signature",
    "x-amz-signature": "url_signature", "x-goog-signature": "url_signature", "x-amz-security-token": "token",
    "token": "token", "access_token": "token", "refresh_token": "token", "id_token": "token", "auth_token": "token",
    "api_key": "api_key", "apikey": "api_key", "api-key": "api_key", "key": "api_key", "secret": "secret",
    "client_secret": "secret", "password": "password", "passwd": "password", "pwd": "password", "pass": "password",
    "auth": "token", "code": "token", "hm": "url_signature", "pub_secret": "secret",
}
_WEAK_QUERY = frozenset(("key", "code", "auth"))  # also ordinary words: only a random-looking value counts
HOOK_SEGMENTS = frozenset(("hooks", "hook", "webhooks", "webhook", "webhookb2", "incomingwebhook"))
KEY_SEGMENTS = frozenset(("key", "keys", "token", "tokens", "secret", "apikey", "api_key", "access_token", "auth"))


def _url_extent(text, start):
    """End of the URL whose "://" is at `start` (trailing punctuation of the sentence left out)."""
    m = _URL_BODY.match(text, start + 3)
    if m is None:
        return start + 3
    end = m.end()
    while end > start + 3 and text[end - 1] in ".,;:!?)]}*":
        end -= 1
    return end


def find_url_secrets(text, lower):
    pos = 0
    while (at := text.find("://", pos)) >= 0:
        end = _url_extent(text, at)
        yield from _url_spans(text, at + 3, end)
        pos = max(end, at + 3)


def _url_spans(text, start, end):
    """Secrets in the URL text[start:end] (after "://"): user part, webhook path, key segments, query values."""
    url = text[start:end]
    authority_end = len(url)
    for sep in "/?#":
        i = url.find(sep)
        if 0 <= i < authority_end:
            authority_end = i
    authority = url[:authority_end]
    at = authority.rfind("@")
    if at >= 0:
        user, colon, password = authority[:at].partition(":")
        if password and not is_placeholder(password):
            yield "url_credentials", start + len(user) + 1, start + at
        elif not colon and looks_random(user):  # a token as the user: https://<token>@host, a Sentry DSN
            yield "url_credentials", start, start + at
    rest = url[authority_end:]
    path_end = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    yield from _path_spans(authority[at + 1:].lower(), rest[:path_end], start + authority_end)
    if path_end < len(rest):  # the query, and a fragment holding parameters (#access_token=... of OAuth)
        yield from _query_spans(rest[path_end + 1:], start + authority_end + path_end + 1)


def _path_spans(host, path, offset):
    segments, pos = [], 0
    for piece in path.split("/"):
        segments.append((piece, offset + pos))
        pos += len(piece) + 1
    hook_from = 2 if host.startswith("hooks.") else None  # hooks.slack.com/services/…: after the service name
    for i, (piece, _) in enumerate(segments):
        name = piece.lower()
        if hook_from is None and name in HOOK_SEGMENTS:
            hook_from = i + 1
        if name in KEY_SEGMENTS and i + 1 < len(segments):
            value, at = segments[i + 1]
            if len(value) >= 8 and (looks_random(value, min_length=8) or any(c.isdigit() for c in value)) \
                    and not is_placeholder(value):
                yield "url_credentials", at, at + len(value)
    if hook_from is None:
        return
    tail = [(p, at) for p, at in segments[hook_from:] if p]
    if any(len(p) >= 6 and (any(c.isdigit() for c in p) or looks_random(p)) and not is_placeholder(p)
           for p, _ in tail):
        yield "webhook", tail[0][1], tail[-1][1] + len(tail[-1][0])


def _query_spans(query, offset):
    pos = 0
    for pair in query.replace(";", "&").replace("#", "&").split("&"):
        name, eq, value = pair.partition("=")
        kind = QUERY_SECRETS.get(name.lower()) if eq else None
        if kind is None and eq and name.lower().endswith(("signature", "_token", "-token", "secret", "password")):
            kind = "url_signature" if name.lower().endswith("signature") else "token"
        if kind and value and not is_placeholder(value):
            weak = name.lower() in _WEAK_QUERY
            if (not weak and len(value) >= 4) or looks_random(value) or value.startswith("AIza"):
                start = offset + pos + len(name) + 1
                yield kind, start, start + len(value)
        pos += len(pair) + 1
