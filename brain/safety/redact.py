"""Replace secret-shaped text, and any ``<private>…</private>`` span, with ``[REDACTED:<kind>]`` before it reaches
memory.

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

from brain.safety import commands, formats, private, shapes, triggers
from brain.safety.shapes import is_hex, is_placeholder, looks_like_password, looks_like_path, looks_random, starts_token
from brain.safety.token_shape import alone_token_kind

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9_]{1,40}\]")

# Earlier wins when spans of different kinds overlap (the union is redacted as one span).
KINDS = (
    "private", "private_key", "aws_access_key", "aws_secret_key", "github_token", "gitlab_token", "anthropic_key",
    "openai_key", "slack_token", "stripe_key", "google_api_key", "sendgrid_key", "npm_token", "pypi_token",
    "huggingface_token", "twilio_key", "shopify_token", "digitalocean_token", "mailgun_key", "telegram_token",
    "discord_token", "azure_secret", "service_token", "webhook", "jwt", "azure_sas", "url_signature",
    "url_credentials", "basic_auth", "bearer", "password", "api_key", "token", "secret",
)
_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DOTTED_RE = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")   # self.password, settings.API_KEY
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A part of a dotted name in code: lower_case, UPPER_CASE or camelCase words ("settings.DB_PASSWORD", "cfg.dbPass"),
# not a random run ("cXU2C.yIQWNNdrhDbA" is a password with a dot in it).
_NAME_PART_RE = re.compile(r"[a-z_][a-z0-9_]*|[A-Z_][A-Z0-9_]*|[a-z]+(?:[A-Z][a-z]+)+[0-9]*")


_FILE_EXTENSIONS = frozenset("md txt json jsonl yaml yml toml env cfg conf ini log csv pem key".split())


_CMDLET_RE = re.compile(r"[A-Z][A-Za-z]{1,15}-[A-Z][A-Za-z]{1,40}")  # PowerShell: $pw = ConvertTo-SecureString ...


def _is_reference(value, key_word):
    """An unquoted value that is code, not a literal: a call, attribute access, a PowerShell cmdlet, or a variable
    named after the key (`api_key=API_KEY`, `password=db_password`). "hunter22.md" is a name ending in a file
    extension."""
    if "(" in value or (_DOTTED_RE.fullmatch(value) and value.rsplit(".", 1)[1].lower() not in _FILE_EXTENSIONS
                        and all(_NAME_PART_RE.fullmatch(part) for part in value.split("."))):
        return True
    if _CMDLET_RE.fullmatch(value):
        return True
    return (len(key_word) >= 5 and _IDENTIFIER_RE.fullmatch(value) is not None
            and key_word in value.lower().replace("-", "_"))


# --- tokens with a recognisable shape --------------------------------------------------------------------

def _shape_finder(kind, pattern, *, group=0, boundary=True, check=None, on_lower=False):
    """Finder for a token shape. boundary: reject matches glued to a longer word; check(match) can veto;
    group: the part that is redacted; on_lower: the (lower-case) pattern runs on the lower-cased copy."""
    compiled = re.compile(pattern)

    def find(text, lower):
        for m in compiled.finditer(lower if on_lower else text):
            if boundary and not starts_token(text, m.start()):
                continue
            if check is not None and not check(m):
                continue
            yield (kind, *m.span(group))
    return find


_PRIVATE_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")


def _find_private_spans(text, lower):
    for start, end in private.spans(text):
        yield "private", start, end


def _find_private_keys(text, lower):
    pos = 0
    while (begin := _PRIVATE_BEGIN.search(text, pos)) is not None:
        end = _PRIVATE_END.search(text, begin.end())
        if end:
            pos = end.end()
        else:  # a truncated paste: redacted to the end (its tail is still key material), or to the next marker
            marker = text.find("[REDACTED:", begin.end())
            pos = len(text) if marker < 0 else marker
        yield "private_key", begin.start(), pos


_find_aws_secret = _shape_finder(
    "aws_secret_key",
    r"(?:secret[_ ]?access[_ ]?key|aws[_ ]?secret[_ ]?(?:access[_ ]?)?key)\\?[\"']?(?:[ \t]{0,4}\[[^\]\n]{0,20}\])?"
    r"[ \t]{0,8}[:=][ \t]{0,8}\\?[\"']?"
    r"([a-z0-9/+]{40})(?![a-z0-9/+=])",
    group=1, boundary=False, on_lower=True)
_find_slack_hook = _shape_finder(
    "slack_token", r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{8,})",
    group=1, boundary=False)
# A shared access signature outside a URL (Azure connection strings: "SharedAccessSignature=sv=…&sig=…").
_find_sas_signature = _shape_finder("azure_sas", r"(?<![A-Za-z0-9_])sig=([A-Za-z0-9%+/=]{16,512})", group=1,
                                    boundary=False)

# --- authorization headers -------------------------------------------------------------------------------

_AUTH_HEADER = re.compile(  # any scheme: Bearer, Basic, Token, SSWS (Okta), Digest, AWS4-HMAC-SHA256, ...
    r"authorization\\?[\"']?\]?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*([a-z][a-z0-9_-]{1,30})[ \t]+"
    r"([^\s\"'`<>\\,;]{1,4096})")
_BEARER = re.compile(r"bearer[ \t]+([a-z0-9._~+/=-]{20,4096})")


_BARE_AUTHORIZATION = re.compile(r"authorization\\?[\"']?\]?[ \t]*[:=][ \t]*\\?[\"']?(?:key=)?"
                                 r"([a-z0-9][^\s\"'`<>\\,;]{15,4095})")


def _find_auth_headers(text, lower):
    for m in _AUTH_HEADER.finditer(lower):
        value = text[m.start(2):m.end(2)]
        if len(value) >= 8 and not is_placeholder(value):
            yield ("basic_auth" if m.group(1) == "basic" else "bearer"), m.start(2), m.end(2)
    for m in _BARE_AUTHORIZATION.finditer(lower):  # a token with no scheme before it (SparkPost, FCM's key=)
        value = text[m.start(1):m.end(1)]
        if (looks_random(value) or is_hex(value)) and not is_placeholder(value):
            yield "bearer", m.start(1), m.end(1)


def _find_bearer_tokens(text, lower):
    # Outside an Authorization header "Bearer" is often prose; only long machine-made values count.
    for m in _BEARER.finditer(lower):
        value = text[m.start(1):m.end(1)]
        if starts_token(text, m.start()) and (value.count(".") == 2 or looks_random(value)):
            yield "bearer", m.start(1), m.end(1)


# A Cookie or Set-Cookie header: every machine-made value in it is a session (whatever its name).
_COOKIE_HEADER = re.compile(r"cookie\\?[\"']?[ \t]*:[ \t]*([^\n]{1,4096})")
_COOKIE_PAIR = re.compile(r"([^=;,\s]{1,128})=([^;,\s\"']{1,4096})")


def _find_cookies(text, lower):
    for header in _COOKIE_HEADER.finditer(lower):
        for pair in _COOKIE_PAIR.finditer(text, header.start(1), header.end(1)):
            value = pair.group(2)
            if looks_random(value) and not is_placeholder(value):
                yield "token", pair.start(2), pair.end(2)


# --- key = value assignments -----------------------------------------------------------------------------

_ASSIGNMENT = re.compile(
    r"""(?x)
    (?P<word>pass(?:phrase|word|wd)?|secret|token|api[_-]?key|key|pwd|auth|credentials?|psk|salt|mnemonic|macaroon)
    (?P<plural>s)?(?P<suffix>[_-](?:base|value|b64|base64|hex|raw|string|str|data|private|secret|name))?
    (?P<keyquote>\\?["']\]?)?
    [ \t]{0,8} (?P<sep>:=|=>|==|=|:(?!:)) [ \t]{0,8}
    (?:
        \\?" (?P<dq>[^"\n]{0,1024}?) \\?"          # "value" (also \"value\" inside JSON-encoded text)
      | \\?' (?P<sq>[^'\n]{0,1024}?) \\?'
      | \\?["'] (?P<open>[^"'\n]{1,1024}) (?=\n|\Z)   # a quote never closed (a line cut short)
      | (?P<bare>[^\s"'`,;&<>\\\[\](){}=:]{0,1024})  # shell, code, query strings (see below)
    )
    """
)
_KEY_NAME_CHARS = _WORD | frozenset("_.-")
# Short words must start a name part: "monkey=", "bypass=" are not credentials, "dbPass=", "api_key=" are.
_NEEDS_BOUNDARY = frozenset(("pass", "key", "apikey", "api_key", "api-key", "pwd", "auth", "psk", "salt"))
# Words before "key" that make a weak key strong (any real value is a secret), and those that name data
# structures, not credentials (a hash or an id under them is what it looks like).
SECRET_QUALIFIERS = frozenset("""
secret private access signing encryption encrypt master hmac jwt client app application account session license
licence service admin root bot webhook deploy integration ingest ingestion server auth authentication api
personal oauth consumer shared storage subscription
""".split())
NON_SECRET_NOUNS = frozenset("""
publishable
cache primary foreign sort partition public composite unique hash dict map lookup index row object shard
group natural surrogate candidate registry translation i18n react list json yaml config hot music keyboard
idempotency dedup dedupe etag ssh gpg pgp host fingerprint cursor page next continuation cancellation pagination
sync max input output prompt completion total count limit hotkey short
""".split())
_LINE_PREFIX_RE = re.compile(r"[ \t]*(?:export[ \t]+|[-*#][ \t]*|//[ \t]*)?")
_NON_SPACE_RUN = re.compile(r"\S{0,1024}")


_NAME_SEPARATORS = str.maketrans("-. \t", "____")


def _qualifier(key_name):
    """The last word of a key's name before its keyword: "db" in DB_PASSWORD, "cache" in cacheKey."""
    return key_name.lower().translate(_NAME_SEPARATORS).rstrip("_").rsplit("_", 1)[-1]


def _assignment_kind(word, key_name):
    """(kind, strong) from the key's last word: strong keys redact any real value, weak ones (a plain
    *_KEY such as CACHE_KEY, or AUTH=) only random-looking values."""
    if word.startswith("pass") or word in ("pwd", "psk"):
        return "password", True
    if word == "mnemonic":
        return "private_key", True
    if word == "macaroon":
        return "token", True
    if word == "macaroon":
        return "token", True
    if word == "salt":
        return "secret", False
    if word == "token":
        return "token", True
    if word.startswith("api"):
        return "api_key", True
    if word.startswith("credential"):
        return "secret", True
    if word == "secret" or "secret" in key_name or "private" in key_name:
        return "secret", True
    return "secret", word == "key" and _qualifier(key_name) in SECRET_QUALIFIERS


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
    suffix = (m.group("suffix") or "")[1:]
    if suffix in ("private", "secret"):  # MJ_APIKEY_PRIVATE, API_KEY_SECRET
        kind, strong = "secret", True
    elif suffix == "name":  # token_name: a name, unless it is made like a token (Teleport's join token)
        strong = False
        word = "name"
    quoted = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else \
        "open" if m.group("open") is not None else None
    if quoted:
        start, end = m.span(quoted)
    else:
        start, end = m.span("bare")
        line_key = _at_line_start(text, key_start)
        # A bare value stops at "=" and ":" so "key=key=key=..." cannot make every match rescan the rest of
        # the line; in .env and YAML lines the value runs to the next space (`DB_PASSWORD=p@ss;w=rd`).
        if line_key or lower.startswith(("base64:", "hex:"), start):  # (APP_KEY=base64:…: the encoding's name too)
            end = _NON_SPACE_RUN.match(text, end).end()
        elif text.startswith("=", end):  # base64 padding ("AccountKey=abc…==;")
            end += 2 if text.startswith("==", end) else 1
        if m.group("plural") and not m.group("keyquote") and text.startswith(",", end) \
                and looks_random(text[start:end]):  # APP_KEYS=a,b,c: each of a list of keys
            end = _NON_SPACE_RUN.match(text, end).end()
        end = start + len(text[start:end].rstrip(".,;:!?"))
        if _is_reference(text[start:end], word.replace("-", "_")):
            return None
        # "Note the token: it expires": a bare value after ':' counts only for keys at a line start or named like
        # code (`db_password: …`, `authToken: …` in a one-line summary of a command).
        if m.group("sep") == ":" and not m.group("keyquote") and not line_key and key_start == word_start:
            return None
    value = text[start:end]
    if len(value) < 4 or is_placeholder(value):
        return None
    if word == "pwd" and looks_like_path(value):
        return None  # PWD=/home/me is the working directory
    if not strong:
        qualifier = _qualifier(lower[key_start:word_start])
        # A hash under CACHE_KEY or a plain "key:" (the store's own key hashes) is what it looks like.
        # {"key": "9b34…"} (Kaggle's kaggle.json), token_name: <hex> (Teleport): a key in hex under a plain name
        keyed_json = (m.group("keyquote") or word == "name") and is_hex(value) and len(value) >= 32
        if qualifier in NON_SECRET_NOUNS or (not qualifier and is_hex(value) and not keyed_json) \
                or not (looks_random(value) or keyed_json):
            return None
    return kind, start, end


# --- keys in prose -----------------------------------------------------------------------------------------

# "the Datadog API key is 0123…", "Twilio auth token: …", "my password is hunter22": a keyword, a short gap
# of linking words, then the value. Keys and tokens must look machine-made; passwords must not look like words.
# A keyword, a short gap, the value. The keywords: English and the words other languages use for a password; a
# personal access token (PAT), a session cookie, recovery and backup codes. The gap: linking words ("is", "was",
# "to", ":"), or up to six words and a parenthesis before one ("the key they gave us for the partner API:", "secret
# key (for the export API) is", "Passwort im Büro ist").
_PROSE_KEY = re.compile(  # (no look-behind before the keyword: it would cost a check at every position)
    r"(?P<kw>key|token|secret|pass(?:word|wd|phrase)|pwd?|cred(?:ential)?s?|sid|seed|totp|pat|sessionid|jsessionid"
    r"|macaroon|passwort|kennwort|contrase(?:ñ|n)a|senha|mot de passe|wachtwoord|(?:recovery|backup)[ -]codes?)"
    r"s?(?![a-z0-9_./\\-])"
    r"(?P<gap>(?:[ \t]{1,3}(?:\([^()\n]{0,40}\)|[^\W\d_][\w.@'’-]{0,15},?)){1,8}[ \t]{0,3}"
    r"(?:is|was|are|ist|est|es|é|=|:|->)[ \t]{0,3}"
    r"|[ \t]{0,3}(?:(?:is|was|are|=|:|->|=>|of|set to|to|here|reads)[ \t]{0,3}){0,2})"
    r"[`'\"(\[]?(?P<val>[a-z0-9/+][a-z0-9_\-.~+/!@#$%^*&()=?]{3,511})")
_PASSWORD_WORDS = frozenset(("password", "passwd", "passphrase", "pwd", "pw", "passwort", "kennwort", "contraseña",
                             "contrasena", "senha", "mot de passe", "wachtwoord"))
# A word after the keyword saying the value is something else than the secret ("key fingerprint is", "token id:").
_NOT_THE_VALUE = NON_SECRET_NOUNS | frozenset(("id", "ids", "name", "names", "fingerprint", "hash", "digest", "size",
                                               "length", "type", "format", "rotation", "policy", "expiry", "scope"))
_HASH_LABEL = re.compile(r"(?:sha-?(?:1|256|384|512)|md5):$")
_NEXT_PARAMETER = re.compile(r"[&?][a-z_][a-z0-9_.-]{0,40}=")
# Codes a person keeps: "5aa8d-ecf62", "7434 9840"; app passwords in four groups: "gmen beaf lcqs tnye".
_CODE_GROUPS = re.compile(r"[a-z0-9]{4,6}(?:[ -][a-z0-9]{4,6}){1,3}(?![a-z0-9])")
_APP_PASSWORD = re.compile(r"[a-z]{4}(?:[ -][a-z]{4}){3}(?![a-z0-9])")
_QUOTED_PHRASE = re.compile(r"[\"“']([^\"”'\n]{6,128})[\"”']")
_ARTICLES = frozenset(("", "the", "a", "an", "this", "that", "its", "their", "our", "my", "your", "same", "new"))


# Words glued before a keyword that still make it one ("authtoken", "apikey", "secretkey"): the compound is read
# as the keyword with that qualifier.
_COMPOUND_HEADS = frozenset(("auth", "api", "access", "secret", "bot", "app", "refresh", "session", "private",
                             "signing", "master", "deploy", "client", "oauth", "bearer", "id"))


def _glued_head(lower, start):
    """The letters glued before position `start` ("auth" in "authtoken"), or "" when none."""
    head = start
    while head > 0 and start - head < 12 and lower[head - 1].isalpha():
        head -= 1
    return lower[head:start]


def _find_prose_keys(text, lower):
    pos = 0
    while (m := _PROSE_KEY.search(lower, pos)) is not None:
        pos = m.end("kw")  # (the next keyword may sit in this one's value: "TOTP seed …")
        yield from _prose_key(text, lower, m)


def _prose_key(text, lower, m):
    """One match of _PROSE_KEY: the value it names, if that is a secret."""
    kw = m.group("kw")
    head = _glued_head(lower, m.start())
    if head and (head not in _COMPOUND_HEADS or kw in _PASSWORD_WORDS):
        return  # inside a longer word ("monkey", "bypassword")
    if m.start() > len(head) and lower[m.start() - len(head) - 1].isalnum():
        return
    start, end = m.start("val"), m.end("val")
    gap_words = m.group("gap").split()
    if gap_words and gap_words[0].strip(",") in _NOT_THE_VALUE or _HASH_LABEL.search(lower, max(0, start - 8),
                                                                                       start):
        return  # "key fingerprint is …", "token id: …", "SHA256:…": what follows is not the secret
    if m.group("gap").strip().endswith("to") and (kw not in ("secret", "key") and kw not in _PASSWORD_WORDS
                                                    or lower.startswith("0x", start)):
        return  # "send the tokens to 0x…" (an address); "the webhook secret to …" is a value
    if kw.startswith(("recovery", "backup")):
        codes = _CODE_GROUPS.match(lower, start)
        if codes and any(c.isdigit() for c in codes.group()):
            yield "password", codes.start(), codes.end()
        return
    if kw in _PASSWORD_WORDS:
        opening = lower[m.end("gap"):m.end("gap") + 1]
        phrase = _QUOTED_PHRASE.match(text, m.end("gap")) if opening in "\"“'" else None
        grouped = _APP_PASSWORD.match(lower, start)
        if phrase and " " in phrase.group(1):  # "passphrase … is "access kid express oval""
            yield "password", phrase.start(1), phrase.end(1)
            return
        if grouped:  # an app password, as Google and Apple show it
            yield "password", grouped.start(), grouped.end()
            return
    end = start + len(text[start:end].rstrip(".,;:?)"))  # ("!" may end a password as well as a sentence)
    query = _NEXT_PARAMETER.search(lower, start, end)  # "api_key=K&page=2": the value ends at the next parameter
    if query:
        end = query.start()
    value = text[start:end]
    if kw in _PASSWORD_WORDS:
        if (m.group("gap").strip() or kw != "pw") and looks_like_password(value) \
                and not _is_reference(value, kw):
            yield "password", start, end
        return
    qualifier = head or _qualifier(lower[max(0, m.start() - 32):m.start()].rsplit(None, 1)[-1:][0] if
                                   lower[max(0, m.start() - 32):m.start()].strip() else "")
    if qualifier in NON_SECRET_NOUNS or is_placeholder(value) or looks_like_path(value):
        return
    short_gap = len(m.group("gap").split()) <= 1
    if is_hex(value) and (len(value) < 32 or (kw == "key" and qualifier in _ARTICLES and short_gap)):
        return  # "the key is 3f9a…", "key:0123…" (the store's own key hashes): a hash, not a credential
    if looks_random(value) or is_hex(value):
        kind = "token" if kw in ("token", "sid", "pat", "sessionid", "jsessionid", "macaroon") else \
            "api_key" if kw == "key" and qualifier == "api" else "secret"
        yield kind, start, end


# A secret written in groups of four after its name (a TOTP seed as authenticator apps show it: "2FA secret: jbsw
# y3dp ehpk 3pxp"): base32 letters and digits, at least one digit of base32's 2-7 among them.
_GROUPED_SECRET = re.compile(r"(?:secret|seed|key|totp|2fa|mfa|otp)(?:[ \t][a-z]{1,12}){0,4}[ \t]*(?:is|was|:|=)[ \t]*"
                             r"((?:[a-z2-7]{4}[ \t]){3,15}[a-z2-7]{2,4})(?![a-z0-9])")


_GROUPED_PASSWORD = re.compile(r"pass(?:word|wd)(?:[ \t][a-z-]{1,16}){0,5}[ \t]*(?:is|was|:|=)[ \t]*"
                               r"([a-z]{4}(?:[ -][a-z]{4}){3})(?![a-z0-9])")


def _find_grouped_secrets(text, lower):
    for m in _GROUPED_SECRET.finditer(lower):
        if any(c in "234567" for c in m.group(1)):
            yield "secret", m.start(1), m.end(1)
    for m in _GROUPED_PASSWORD.finditer(lower):  # an app password, as Google and Apple show it
        yield "password", m.start(1), m.end(1)


# A setting written "name value" at a line's start (redis.conf's requirepass, Gradle's storePassword "…", an
# ssh_config-like file): the name ends with a secret's word, the value is the line's one other word.
_SPACED_SETTING = re.compile(r"(?m)^[ \t]{0,16}([A-Za-z_][\w.-]{0,63})[ \t]{1,8}(\"[^\"\n]{1,512}\"|'[^'\n]{1,512}'"
                             r"|[^\s\"'=:]{4,512})[ \t]*$")
_SETTING_NAME = re.compile(r"(?:pass(?:word|wd|phrase)?|secret|token|requirepass|masterauth|api_?key|psk)$",
                           re.IGNORECASE)
# A name that is a plain word followed by a plain word is prose ("Token expired", "Secret sauce", "Password reset"),
# not a setting: a configuration's own names (requirepass, storePassword, api_key) still are.
_PLAIN_NAMES = frozenset(("pass", "password", "passwd", "passphrase", "secret", "token", "psk", "apikey"))


def _find_spaced_settings(text, lower):
    for m in _SPACED_SETTING.finditer(text):
        if not _SETTING_NAME.search(m.group(1)) or m.group(1).lower() in ("the", "a"):
            continue
        value, start, end = m.group(2), m.start(2), m.end(2)
        if value[0] in "\"'":
            value, start, end = value[1:-1], start + 1, end - 1
        if m.group(1).lower() in _PLAIN_NAMES and value.isalpha():
            continue
        if len(value) >= 4 and not is_placeholder(value) and not _is_reference(value, ""):
            yield "password" if "pass" in m.group(1).lower() else "secret", start, end


# --- tokens alone -----------------------------------------------------------------------------------------

def _find_alone_token(text, lower):
    """A whole field that is one token (a tag, an id, a title made of one word) judged by its shape; of a single
    `name=value` word, the value; of an id joined from fields ("<conversation>|<time>", "a=1;b=2"), each field."""
    if len(text) > triggers.MAX_ALONE_TOKEN:
        return  # (could_be_alone_token's own bound, checked before the copies below)
    value = text.strip().strip("\"'`").rstrip(".,;:")
    if " " in value or "\n" in value or not triggers.could_be_alone_token(value):
        return  # (a space or a line break: words, which could_be_alone_token would find after reading it all)
    start = text.find(value)
    name, eq, _ = value.partition("=")
    if eq and any(word in name.lower() for word in triggers.ASSIGNMENT):
        return  # SECRET_TOKEN=…, APP_KEYS=a,b: the assignment rule's
    if ("|" in value or "," in value or ";" in value) and not alone_token_kind(value):
        for part in _ID_PARTS.finditer(value):
            if part.end() - part.start() >= 8:
                yield from _alone_value(part.group(), start + part.start())
        return
    yield from _alone_value(value, start)


def _alone_value(value, start):
    name, eq, rest = value.partition("=")
    if eq and rest.strip("=") and _IDENTIFIER_RE.fullmatch(name.replace("-", "_").replace(".", "_")):
        if any(word in name.lower() for word in triggers.ASSIGNMENT):
            return  # SECRET_TOKEN=…, AccountKey=…: the assignment rule's
        start, value = start + len(name) + 1, rest
    kind = alone_token_kind(value)
    if kind:
        yield kind, start, start + len(value)


_ID_PARTS = re.compile(r"[^|,;]{1,4096}")


# A long machine-made token standing in prose with nothing to name it: long enough (45+) to leave out addresses
# and 32-byte hashes in base64, mixing upper case, lower case and digits, with no vendor-style prefix (ids have
# one: "msg_01…", "req_…", "cs_test_…"), and not the value of an id, hash or signature field.
_BARE_RUN = re.compile(r"(?<![A-Za-z0-9+/=_.~:-])[A-Za-z0-9][A-Za-z0-9+/_.~-]{%d,4096}={0,2}(?![A-Za-z0-9+/=_.~-])"
                       % (triggers.MIN_BARE_TOKEN - 1))
_ID_KEYED = re.compile(r"(?:id|ids|uuid|signature|sig|hash|digest|checksum|etag|nonce|integrity|sha\d*|md5|cid|"
                       r"fingerprint|cursor|commit|version|ref|key_?id|base64)[\"']?[ \t]*[:=,][ \t]*[\"']?$")


def _find_bare_tokens(text, lower):
    for m in _BARE_RUN.finditer(text):
        value = m.group()
        if shapes.has_vendor_prefix(value) or not triggers.mixes_all_classes(value):
            continue
        if _ID_KEYED.search(lower, max(0, m.start() - 24), m.start()) or _in_public_block(text, m.start()):
            continue
        if alone_token_kind(value) == "token":
            yield "token", m.start(), m.end()


def _in_public_block(text, at) -> bool:
    """Whether position `at` is inside an armored block that is not a private key (a certificate, a public key)."""
    begin = text.rfind("-----BEGIN ", max(0, at - 16384), at)
    if begin < 0 or text.find("-----END ", begin, at) >= 0:
        return False
    return "PRIVATE" not in text[begin:text.find("-----", begin + 11, at) if text.find("-----", begin + 11, at) > 0
                                 else at]


# --- putting it together ---------------------------------------------------------------------------------

_LONG = ()  # instead of triggers: the finder runs when the text has a word of 14 characters or more
_BARE = ((),)  # ... when it has a word long enough for a bare token (triggers.has_bare_token_shape)
_COMMAS = (((),),)  # ... when it holds 63 commas or more (a 64-number array)
_TYPED = ((((),),),)  # ... when a word mixes all four classes (triggers.has_typed_password)
# (finder, triggers, triggers_are_lower_case): a finder runs only if one of its triggers occurs in the text
# (in its lower-cased copy for lower-case triggers). Triggers live in brain/safety/triggers.py, which a writer
# on a hook's path asks first (`may_hold_secret`) so that clean strings never load this module.
_RULES = (
    (_find_private_spans, (private.TRIGGER,), True),
    (_find_private_keys, ("PRIVATE KEY",), False),
    # Every token with a vendor prefix (AKIA…, ghp_…, sk-…, AIza…, npm_…, eyJ….eyJ….…): one table, one scan.
    (shapes.find_service_tokens, _LONG, False),
    (_find_aws_secret, triggers.AWS_SECRET, True),
    (_find_slack_hook, ("hooks.slack.com",), False),
    (shapes.find_telegram, (":AA",), False),
    (shapes.find_infix_tokens, (".atlasv1.", "-us", "AZDO"), False),
    (_find_sas_signature, ("sig=",), False),
    (shapes.find_azure_client_secrets, ("Q~",), False),
    (shapes.find_url_secrets, triggers.URL, False),
    (commands.find_cli_secrets, None, True),       # its own search for flags and command names
    (commands.find_secret_flags, ("-",), False),  # (then its keywords, which are rarer than "-")
    (commands.find_quoted_tokens, ("'", '"', "`"), False),
    (_find_auth_headers, triggers.AUTHORIZATION, True),
    (_find_bearer_tokens, triggers.BEARER, True),
    (formats.find_basic_credentials, triggers.BASIC, True),
    (_find_cookies, triggers.COOKIE, True),
    (formats.find_session_cookies, triggers.SESSION, True),
    (_find_assignments, triggers.ASSIGNMENT, True),
    (_find_prose_keys, triggers.PROSE, True),
    (_find_grouped_secrets, triggers.PROSE, True),
    (_find_spaced_settings, triggers.ASSIGNMENT + ("requirepass", "masterauth"), True),
    (formats.find_format_secrets, None, False),  # (its own cheap look for each format's mark)
    (formats.find_login_pairs, ("login", "log in", "user", "sign in"), True),
    (formats.find_typed_passwords, _TYPED, False),
    (formats.find_pgpass, formats.PGPASS_TRIGGERS, False),
    (formats.find_xml_secrets, ("</", "<add "), True),
    (formats.find_named_pairs, triggers.ASSIGNMENT, True),
    (formats.find_crypt_hashes, formats.CRYPT_TRIGGERS, False),
    (formats.find_putty_keys, ("Private-Lines:",), False),
    (formats.find_minisign_keys, ("untrusted comment:",), False),
    (formats.find_jwk_private, ("\"kty\"", "'kty'"), False),
    (formats.find_keypair_arrays, _COMMAS, False),
    (formats.find_pem_tails, ("-----END ",), False),
    (formats.find_recovery_phrases, None, False),  # (it asks triggers.could_hold_mnemonic first)
    (_find_alone_token, None, False),  # (one cheap look: is the whole text one word?)
    (_find_bare_tokens, _BARE, False),
)


def find_secrets(text):
    """Return non-overlapping ``(kind, start, end)`` spans of secrets in text, sorted by start."""
    if not text:
        return []
    lower = text.lower()
    if len(lower) != len(text):         # a few non-ASCII letters change length; offsets must line up
        lower = text.translate(_ASCII_LOWER)
    spans = []
    asked = {}  # a trigger tuple's answer for this text: three rules share ASSIGNMENT, two PROSE
    for finder, needs, lower_case in _RULES:
        if needs is _LONG:
            if not shapes.has_long_word(text):
                continue
        elif needs is _BARE:
            if not triggers.has_bare_token_shape(text):
                continue
        elif needs is _COMMAS:
            if text.count(",") < 63:
                continue
        elif needs is _TYPED:
            if not triggers.has_typed_password(text):
                continue
        elif needs is not None:
            key = id(needs) if lower_case else -id(needs)
            present = asked.get(key)
            if present is None:
                haystack = lower if lower_case else text
                present = False
                for trigger in needs:  # (a plain loop: any() over a generator costs more than most searches)
                    if trigger in haystack:
                        present = True
                        break
                asked[key] = present
            if not present:
                continue
        spans.extend(finder(text, lower))
    if not spans:
        return []
    spans.sort(key=lambda s: (s[1], -s[2]))
    if "[REDACTED:" in text:
        # Before merging, so a quoted value that spans a marker cannot drag a real secret out with it. A private
        # span goes whole, markers inside it included: the person said none of it is to be kept.
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
    """Leave existing markers alone: drop spans that overlap one (both sorted by start; one linear walk), but a
    private span."""
    kept, i = [], 0
    for span in spans:
        while i < len(markers) and markers[i][1] <= span[1]:
            i += 1
        if i < len(markers) and markers[i][0] < span[2] and span[0] != "private":
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


# Texts redacted lately, and what they became. A chunk is redacted when it is built and again by the writer on its
# way to disk (brain/util/files.py); the second time costs a dictionary lookup. A redacted text maps to itself.
# Bounded by characters, not entries: a bulk batch of 1,000 chunks holds ~8,000 strings (most of them short keys),
# and a bound of 2,048 entries emptied the memo before the writer's pass came back to them (0.25 ms a chunk).
# Capture reads a whole transcript before it builds a chunk: a 2,000-turn one (10 MB) puts ~5 million characters
# here, and at 4 million the memo emptied itself once, between the reading and the building (~1 MB more RSS now).
_SEEN: dict = {}
_SEEN_MAX_CHARS = 8_000_000
_SEEN_MAX_LENGTH = 64 * 1024
_seen_chars = 0
_CHEAP_CHECK_LENGTH = 64  # up to this length `triggers.may_hold_secret` costs less than running the rules


def redact(text):
    """Return text with every secret replaced by ``[REDACTED:<kind>]``; idempotent."""
    small = len(text) <= _SEEN_MAX_LENGTH
    if small and (known := _SEEN.get(text)) is not None:
        return known
    original = text
    if len(text) <= _CHEAP_CHECK_LENGTH and not triggers.may_hold_secret(text):
        _remember(original, text)  # (ids, times, names: the triggers alone say no faster than the rules would)
        return text
    # A new marker can change what its neighbours look like (a word boundary, a line start), so repeat to a
    # fixed point. Each pass only shrinks the unredacted text, so this ends; usually after one or two passes.
    for _ in range(8):
        redacted = _redact_once(text)
        if redacted == text:
            break
        text = redacted
    if small:
        _remember(original, text)
    return text


def _remember(original, redacted):
    global _seen_chars
    if len(original) > _SEEN_MAX_LENGTH or _SEEN.get(original) is redacted:
        return
    if _seen_chars >= _SEEN_MAX_CHARS:
        _SEEN.clear()
        _seen_chars = 0
    _SEEN[original] = _SEEN[redacted] = redacted
    _seen_chars += len(original) + (len(redacted) if redacted is not original else 0)


def redact_with_line(text: str, line: str) -> str:
    """`text + "\n" + line` redacted, for a line rlm-mem composed from redacted parts that starts with its own
    marker (capture's "[tools] " line): no secret can run from the text into it, so each is redacted alone and
    the result remembered as redacted. tests/test_redact.py checks that no secret of the corpora crosses the
    break."""
    joined = redact(text) + "\n" + redact(line)
    _remember(joined, joined)
    return joined


def redact_joined(parts, separator: str) -> str:
    """`separator.join(parts)` redacted, without scanning the whole again when the parts were redacted before (a
    reply's text blocks). `separator` is whitespace, so no word runs across it.

    Each part is redacted alone (a memo lookup when it was already); then only where two parts meet is read
    again: up to _JOIN_WINDOW characters on each side, in whole lines or words. A rule firing there sends the whole
    through `redact`. (A secret spread wider than that across two separately written parts is judged in each part
    alone; tests/test_redact.py cuts every multi-line secret of the corpora at each line break to check it.)"""
    joined = separator.join(redact(part) for part in parts)
    for left, right in zip(parts, parts[1:]):
        if find_secrets(_tail(left) + separator + _head(right)):
            return redact(separator.join(parts))
    _remember(joined, joined)
    return joined


_JOIN_WINDOW = 256


def _tail(text):
    """About the last _JOIN_WINDOW characters of text, starting at a line or a word (a longer last word: its
    whole line)."""
    cut = len(text) - _JOIN_WINDOW
    if cut <= 0:
        return text
    breaks = [i for i in (text.find("\n", cut), text.find(" ", cut)) if i >= 0]
    return text[min(breaks) + 1:] if breaks else text[text.rfind("\n", 0, cut) + 1:]


def _head(text):
    """About the first _JOIN_WINDOW characters of text, ending at a line or a word (see _tail)."""
    if len(text) <= _JOIN_WINDOW:
        return text
    breaks = [i for i in (text.rfind("\n", 0, _JOIN_WINDOW), text.rfind(" ", 0, _JOIN_WINDOW)) if i > 0]
    if breaks:
        return text[:max(breaks)]
    end = text.find("\n", _JOIN_WINDOW)
    return text if end < 0 else text[:end]


def redact_value(value):
    """`value` with every string in it redacted, at any depth: dict keys and values, list and tuple items.

    Dicts and lists are changed in place (and returned), so whoever holds them next (an index built from the
    chunk just written, the report of what was saved) sees exactly what went to disk. Other values pass as they
    are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        items = [(redact_value(k), redact_value(v)) for k, v in value.items()]
        if any(k is not old for (k, _), old in zip(items, value)):
            value.clear()  # a key changed: rebuild, keeping the order
        value.update(items)
        return value
    if isinstance(value, list):
        value[:] = [redact_value(v) for v in value]
        return value
    if isinstance(value, tuple):
        return tuple(redact_value(v) for v in value)
    return value
