"""Is a token that stands alone a secret? Judged by its shape, where no word around it can say so.

A tag, a conversation id, an id in metadata, a quoted argument of a command or a value handed to a secret store
holds one token and nothing else: no "password=", no "Authorization:" to trigger a rule. Machine-made secrets
share a shape whatever their vendor: a random body drawn from one alphabet (base64, base64url, base62, base58,
base36, base32), long enough to be unguessable, its character classes mixed the way chance mixes them and not the
way words do. Typed passwords are short, but mix letters and digits with a symbol.

What must stay, and why each is told apart here:
- hashes: hex only (git SHAs, checksums), or named by their algorithm (`sha512-…` in lockfiles, `sha256:…`);
- UUIDs and the store's own ids and times; paths, URLs and e-mail addresses (URL credentials have rules of their own);
- versions and identifiers made of words (`getUserProfileById`, `release_2026_q1`): long letter runs with vowels;
- base64 of ordinary text (it decodes to words and spaces), unless it decodes to `user:password` or a secret;
- placeholders and masks (`YOUR_API_KEY`, `xxxx…`, `<token>`).
`alone_token_kind(token)` gives the kind to redact it as, or None. tests/test_redact.py holds random tokens of
every alphabet and a corpus of look-alikes (and every token of the shared transcripts) against it.
"""
import binascii
import math
import re

from brain.safety import triggers
from brain.safety.shapes import is_hex, is_placeholder

_RUN = re.compile(r"[A-Za-z0-9+/=_.~-]{16,4096}")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_UUID = re.compile(r"(?:urn:uuid:)?\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?")
_HASH_NAMED = re.compile(r"(?i)(?:sha-?(?:1|224|256|384|512)|sha3-\d+|md5|blake2[bs]?|xxh\d*|crc32c?|h1|murmur3?)"
                         r"[-:=_]")
_VERSION = re.compile(r"(?<![0-9.])[vV]?[0-9]{1,9}(?:\.[0-9]{1,9}){1,4}(?:[-+][0-9A-Za-z.+-]{1,40})?")
_EMAIL = re.compile(r"[^@\s]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}")
# A vendor-style prefix: one to three lower-case words, each followed by "_" or "-" ("sk_live_", "pscale_tkn_").
_PREFIX = re.compile(r"(?:[a-z][a-z0-9]{0,11}[_-]){1,3}")
_PASSWORD_SYMBOLS = frozenset("!#$%&*;?^~|()[]{}<>,'\"`")
# A sed or perl substitution given as one quoted argument (`sed -i 's/limit=5/limit=15/' .env`): an edit, not a key.
_SUBSTITUTION = re.compile(r"(?:s|y|tr)([/|#:,@!])(?:(?!\1).){1,400}\1(?:(?!\1).){0,400}\1[a-zA-Z0-9]{0,4}")
_SEPARATORS = re.compile(r"[-_/.]+")
_NAME_PART = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]{0,63}(?:\[[0-9]{1,4}\])*")
# A name's part: letters then a number, or a number then a unit ("fp16", "len256", "a100", "80gb")
_MARKED_PART = re.compile(r"[a-z]{1,8}[0-9]{0,5}|[0-9]{1,5}[a-z]{0,3}")
# A time written in an id ("garden-20261128T094512Z-cba6", "backup_2026-11-28T09:45Z_3f"): the rest decides.
_STAMP = re.compile(r"\d{8}T\d{4,6}Z?|\d{4}-\d{2}-\d{2}(?:T\d{2}:?\d{2}(?::?\d{2})?Z?)?")
# A host name by DNS's rules, its last label a word (`482913306715.dkr.ecr.eu-central-1.amazonaws.com`)
_HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,10}[a-z]{2,24}")
_DATE = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")  # 20240311
_VOWELS = frozenset("aeiouAEIOU")
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_TOKEN_BODY_CHARS = _BASE64_CHARS | frozenset(".~")
MIN_RANDOM = 16  # body characters a machine-made token has at least (a shorter one is guessable, or an id)


def _classes(value):
    return triggers.char_classes(value)[:3]


def _entropy(value) -> float:
    """Shannon entropy of the characters, in bits per character."""
    counts = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def _class_changes(value) -> float:
    """How often the character class (upper, lower, digit, other) changes from one character to the next: about
    0.6 in a random base62 string, 0.15-0.3 in identifiers made of words (a change per word)."""
    def cls(c):
        return 0 if c.isdigit() else 1 if c.isupper() else 2 if c.islower() else 3
    previous, changes = None, 0
    for c in value:
        k = cls(c)
        if previous is not None and k != previous:
            changes += 1
        previous = k
    return changes / max(1, len(value) - 1)


def _wordy_share(value, vowels=0.3) -> float:
    """The share of letters that sit in runs of four or more same-case letters, at least `vowels` of them vowels
    ("Profile", "cache", "USER"): most of an identifier's letters, few of a random string's."""
    in_words, letters, run = 0, 0, []
    for c in value + " ":
        if c.isalpha() and (not run or c.islower() == run[-1].islower() or (len(run) == 1 and run[0].isupper())):
            run.append(c)
            continue
        if len(run) >= 4 and sum(ch in _VOWELS for ch in run) >= vowels * len(run):  # ("USER"; not "OTMTJT")
            in_words += len(run)
        letters += len(run)
        run = [c] if c.isalpha() else []
    return in_words / letters if letters else 1.0


def _vowel_share(value) -> float:
    letters = [c for c in value if c.isalpha()]
    return sum(1 for c in letters if c in _VOWELS) / len(letters) if letters else 1.0


def _decoded_base64(body):
    """The bytes of `body` read as base64 or base64url (padding optional), or None."""
    if len(body) < 16 or not _BASE64_BODY.fullmatch(body):
        return None
    data = body.rstrip("=").replace("-", "+").replace("_", "/")
    data += "=" * (-len(data) % 4)
    try:
        return binascii.a2b_base64(data)
    except (binascii.Error, ValueError):
        return None


def _is_text(data: bytes) -> bool:
    printable = sum(1 for b in data if 32 <= b < 127 or b in (9, 10, 13))
    return printable >= 0.95 * len(data)


def _base64_verdict(body):
    """"secret", "text" (base64 of ordinary words: a look-alike) or None (not base64, or nothing to say)."""
    data = _decoded_base64(body)
    if data is None or len(data) < 12:
        return None
    if not _is_text(data):
        return None  # random bytes: judged by the shape of the encoding below
    text = data.decode("ascii", "replace")
    user, colon, password = text.partition(":")
    if colon and user and password and " " not in text and len(password) >= 3:
        return "secret"  # `user:password`, as Basic authentication and docker's config.json encode it
    if "PRIVATE KEY" in text or any(looks_machine_made(run) for run in _RUN.findall(text)):
        return "secret"  # a key, or a structure holding a token (a tunnel's {"a":…,"t":…,"s":…})
    return "text" if " " in text or _wordy_share(text) > 0.5 else None


def looks_machine_made(body, min_length=MIN_RANDOM) -> bool:
    """A random body: long enough, from a token alphabet, its classes mixed by chance and not by words."""
    if len(body) < min_length or not _TOKEN_BODY_CHARS.issuperset(body):
        return False
    upper, lower, digit = _classes(body)
    letters = upper + lower
    if letters < 4 or len(set(body)) < min(12, len(body) // 2):
        return False
    if upper and lower:  # base64, base62, base58: both cases
        if _entropy(body) < 3.5:
            return False
        changes = _class_changes(body)
        # chance changes the class about every other character; words about once a word ("getUserProfileById")
        return (digit and changes >= 0.45) or (_wordy_share(body) < 0.5 and changes >= 0.3)
    # one case of letters (base36, base32): digits mixed in, and letters that are not words (a random draw holds
    # about one vowel in five letters, words two in five)
    if digit < 1 or is_hex(body) or _entropy(body) < 3.5:
        return False
    return len(body) >= 24 or _vowel_share(body) < 0.4  # (a short draw's vowels vary too much to say more)


def _dotted_name(value) -> bool:
    """A path of names (`Refunds.WindowDays`, `Serilog.WriteTo[0].Name`, `org.h2.jdbc.JdbcSQLSyntaxErrorException`):
    a settings key or a member, which a config reader or a stack trace writes alone. Each part is an identifier too
    short to be a secret on its own, no token alone, or words (`DesktopTargetFps`: "Desktop" has too few vowels for
    looks_machine_made's words); a dotted token (a JWT, `<id>.<secret>`) has a random part."""
    parts = value.split(".")
    return len(parts) >= 2 and all(_NAME_PART.fullmatch(part) and (len(part) < MIN_RANDOM or not alone_token_kind(
        part) or _wordy_share(part, vowels=0.2) >= 0.8) for part in parts) \
        and any(sum(c.isalpha() for c in part) >= 3 for part in parts)


def _typed_password(value) -> bool:
    """A password typed by a person: 8-64 characters, letters mixed with digits or case, and a symbol."""
    if not 8 <= len(value) <= 64 or not any(c in _PASSWORD_SYMBOLS for c in value):
        return False
    name = value.partition("=")[0]
    if ("=" in value and _IDENT.fullmatch(name)) or any(c in value for c in "/:") \
            or "@" in value[1:-1] and "." in value:
        return False  # key=value, a path, a time, user@host: another rule's business, or nothing
    if "(" in value or "[" in value or "{" in value:
        return False  # a call, an index, a template: code
    upper, lower, digit = _classes(value)
    if lower == 0 or upper + lower < 4 or (bool(upper) + bool(digit)) < 1:
        return False  # people's passwords hold lower-case letters, and digits or capitals besides
    core = value.strip("".join(_PASSWORD_SYMBOLS) + "-_.")
    if not digit and _wordy_share(core, vowels=0.2) >= 0.8:
        return False  # a word with punctuation ("**Authentication", "Why?!")
    return not (value[0] in "$%{<([" or value.endswith((")", "]", "}", ">")))  # $VAR, ${X}, <token>, f(x), [x]


def alone_token_kind(token):
    """The kind to redact `token` as when it stands alone ("token", "password"), or None when it is not a secret."""
    value = token.strip().strip("\"'`").rstrip(".,;:")  # ("!" and "?" end passwords as often as sentences)
    if not triggers.could_be_alone_token(value) or is_placeholder(value):
        return None
    if _UUID.fullmatch(value) or _HASH_NAMED.match(value) or _VERSION.fullmatch(value) or _EMAIL.fullmatch(value) \
            or _SUBSTITUTION.fullmatch(value):
        return None
    if "%" in value and _PERCENT.search(value):  # URL-encoded (a SAS signature's %2B and %3D): judged decoded
        value = _PERCENT.sub(lambda m: chr(int(m.group(1), 16)), value)
    stem, dot, extension = value.rpartition(".")
    if dot and stem and 1 <= len(extension) <= 8 and extension.isalpha() and extension.islower():
        return None  # a file's name ("0_0001_2345af.md", "app.3f9a8b7c.js", "src/Shop.Api/Shop.Api.csproj")
    host, slash, path = value.partition("/")
    if slash and _HOST.fullmatch(host):  # a host and a path without a scheme (an image registry): the path decides
        return next(filter(None, (alone_token_kind(part) for part in path.split("/") if part)), None)
    digits = value[2:] if value[:2] in ("0x", "0X") else value
    if is_hex(digits):
        # Hex alone is a hash or a commit at the lengths those have (SHA-1 and git 40, SHA-224 56, SHA-256 64, and
        # anything short); at 32 (a key's 128 bits: Datadog, Rails' master.key), 0x and 64 (a wallet's key) or
        # 96 and more (Rails' secret_key_base) it is a key: no lockfile or commit writes those bare.
        if (len(digits) == 32 or len(digits) >= 96 or (digits is not value and len(digits) == 64)) \
                and len(set(digits.lower())) >= 12:  # (random hex uses most of its 16 digits)
            return "token"
        return None
    scheme, colon, rest = value.partition(":")
    if colon and scheme.isalpha() and len(scheme) <= 12 and rest:
        value = rest  # "base64:…" (Laravel's APP_KEY), "token:…": the encoding's name is not the secret's shape
    parts = _SEPARATORS.split(value)
    if all(part.isdigit() and (len(part) <= 4 or _DATE.fullmatch(part)) or (part.isalpha() and part.islower()
                                                                           and len(part) >= 2) for part in parts):
        return None  # lower-case words, small numbers and dates ("docs-site-pages/12", "bookworm-20240311-slim")
    if all(part.isalpha() and part.islower() or part.isdigit() and len(part) <= 4
           or len(part) <= 3 and part.isalnum() and part.islower() for part in parts) \
            and sum(len(part) for part in parts if part.isalpha() and len(part) >= 3) >= len(value) // 2:
        return None  # words and a short mark ("q2-staging-dedupe", "k8s-node-pools", "s3-backup"): a name
    if len(parts) >= 3 and all(_MARKED_PART.fullmatch(part) for part in parts) \
            and any(part.isalpha() and len(part) >= 4 for part in parts):
        return None  # a run's or machine's name of marks and a word ("c4-fp16-len256-seeds"): no draw is so tidy
    prefix = _PREFIX.match(value)
    body = value[prefix.end():] if prefix else value
    unstamped = _STAMP.sub("", body)
    if unstamped != body and is_hex(unstamped.replace("-", "").replace("_", "").replace(":", "") or "0"):
        return None  # a name, a time and a number or a short hash: an id made by a program, not a secret
    if prefix and is_hex(body.replace("-", "")):
        # a name and a number or a hash ("project-8c9f5d0788", "build-2026-11-20"): an id
        return "password" if _typed_password(value) else None
    if len(body) < MIN_RANDOM:
        body = value  # (a short "prefix" is as likely the token's own first characters: "u5_ztrrilq_EQY2…")
    if body.startswith("AAAA"):
        return None  # SSH's wire format (a length, then "ssh-ed25519"...): a public key's blob
    if (value.startswith("Qm") and len(value) == 46) or value.startswith(("bafy", "bafk")):
        return None  # an IPFS content id: a hash
    if _BASE64_CHARS.issuperset(body):
        verdict = _base64_verdict(body)
        if verdict == "secret":
            return "token"
        if verdict == "text":
            return None
    if _dotted_name(value):
        return None
    if looks_machine_made(body):
        return "token"
    if "." in body and all(looks_machine_made(part, 12) or len(part) < 12 for part in body.split(".")) \
            and sum(len(p) for p in body.split(".") if looks_machine_made(p, 12)) >= 24:
        return "token"  # dotted tokens (a JWT without its header, "<id>.<secret>" pairs)
    if _typed_password(value):
        return "password"
    return None
