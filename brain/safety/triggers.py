"""Can this text hold a secret? The cheap substrings every secret shape of `redact` contains, checked without `re`.

Each rule of `brain/safety/redact.py` runs only when one of its triggers occurs in the text, and takes its
triggers from here; so `may_hold_secret(text) is False` means `redact(text) == text`, and a writer on a hook's
path (`brain/util/files.py`) can skip loading the regex engine (~3 ms, plus compiling the rules) for strings like
ids, timestamps and paths. tests/test_redact.py checks that every secret of the corpus trips a trigger.
"""
from brain.safety.families import GLUED, TOKENS

# Substrings looked for in the lower-cased text.
PRIVATE_SPAN = ("<private",)  # brain/safety/private.TRIGGER
PRIVATE_KEY = ("private key", "secret-key-", "private-lines:", "secret key", "-----end ")
AWS_SECRET = ("secret_access", "secretaccess", "aws_secret", "awssecret", "secret access", "aws secret")
AUTHORIZATION = ("authorization",)
BEARER = ("bearer",)
BASIC = ("basic ",)
COOKIE = ("cookie",)
# A session cookie's value after its name ("sessionid=…", "PHPSESSID=…", "connect.sid=…"), with or without Cookie:
SESSION = ("session=", "sessionid=", "session_id=", "session-id=", "sessid=", "sid=", "sess=")
ASSIGNMENT = ("pass", "secret", "token", "key", "pwd", "auth", "credential", "psk", "salt", "mnemonic", "macaroon")
PROSE = ("key", "token", "secret", "pass", "pwd", "credential", "creds", "auth", "sid", "seed", "totp", "pat ", "pat:",
         "pat=", "pats ",
         "macaroon", "passwort", "kennwort", "contrase", "senha", "wachtwoord", "recovery", "backup", "sessionid")
URL = ("://",)
CREDENTIAL_FILES = ("machine ", "<add ", "</", "define(", "setenv", "\"kty\"", "'kty'", "otpauth", "wifi:",
                    "bundle_", "log in", "login", "sign in", "requirepass", "masterauth")
# Marks of formats/find_format_secrets (checked in the text as it is)
FORMAT_MARKS = ("webhook.office.com", "slack-files.com", ":APA91b", "AKIA", "ASIA", "cat ", "WIFI:", "BUNDLE_")
# A vendor token not in the table but named by a word of its prefix (brain/safety/shapes.py: GENERIC_PREFIX_WORDS)
GENERIC_PREFIX = tuple(w + sep for w in ("tkn", "tok", "sec", "pat", "api", "pw", "cred", "access", "refresh")
                       for sep in "_-")
# Command lines that pass a password (brain/safety/commands.py): a line is read only when it holds one of
# CLI_MARKERS (a flag, `set`, `login`, a pipe...) and one of these names, so both must be present.
CLI_MARKERS = (" -", "\t-", " set ", " config ", " login ", " | ", "|", " put ", " add", " > ", ">>", "<<<",
               " /", " auth", " install ", " using ", " unlock ", " insert ", " authtoken")
CLI = ("mysql", "mariadb", "sshpass", "curl", "docker", "podman", "nerdctl", "helm", "buildah", "skopeo", "oras",
       "redis-cli", "ldap", "sqlcmd", "bcp", "7z", "unrar", "rar", "zip", "wget", "smbclient", "htpasswd", "openssl",
       "mongo", "lftp", "mosquitto", "ipmitool", "freerdp", "rdesktop", "snmp", "az", "gh", "crane", "finch",
       "osql", "isql", "smb", "rpcclient", "vault", "config", "echo", "printf", "psql", "sqlplus", "plink", "pscp",
       "psftp", "putty", "rabbitmq", "cqlsh", "vsql", "db2", "ssh-keygen", "gpg", "wandb", "cargo", "ngrok",
       "cloudflared", "bw", "security", "kubectl", "aws", "gcloud", "doppler", "heroku", "fly", "netlify",
       "wrangler", "railway", "vercel", "supabase", "firebase", "glab", "op", "net", "cmdkey", "psexec", "winrs",
       "convertto-securestring", "schtasks", "nuget", "dotnet", "choco", "http", "mc", "consul", "nomad", "snyk",
       "doctl", "oc", "argocd", "tailscale", "mysql", "influx", "clickhouse", "expdp", "impdp", "rman", "sqlldr",
       "tee", "cat", "chpasswd", "passwd", "kinit", "pass", "keyring", "secret-tool", "mycli", "twine", "b2")
# Commands whose secret is a word in a position, after no flag (brain/safety/commands.py): their name is enough.
CLI_POSITIONAL = ("sqlplus", "sqlldr", "expdp", "impdp", "rman", "rabbitmqctl", "wandb", "ngrok", "cloudflared",
                  "cargo login", "snyk auth", "set-agent-token", "bw unlock", "bw login", "net user", "net use",
                  "mc alias", "mc config", "vault login", "convertto-securestring", "setapikey", "redis-cli",
                  "b2 authorize", "b2 account")
# The Discord bot token shape starts with one of these (the first digit of the bot's id, base64-encoded).
DISCORD_STARTS = ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")

# Substrings looked for in the text as it is (their case is part of the shape).
SHAPES = ("PRIVATE KEY", "Q~", ":AA", "sig=", "AccountKey=", "SharedAccessKey=", ".atlasv1.", "-us", "AZDO",
          "-----END ", "PuTTY-User-Key-File")
TABLE_PREFIXES = frozenset(entry[0] for entry in TOKENS)
# A long prefix is itself evidence; a short one ("AC", "re_", "pat") must start a token (not "transcript_path").
_GLUED = frozenset(GLUED)
_LONG_PREFIXES = tuple(p for p in TABLE_PREFIXES if len(p) >= 5 or p in _GLUED)
_SHORT_PREFIXES = tuple(p for p in TABLE_PREFIXES if len(p) < 5 and p not in _GLUED) + DISCORD_STARTS
LOWER = tuple(dict.fromkeys(PRIVATE_SPAN + PRIVATE_KEY + AWS_SECRET + AUTHORIZATION + BEARER + BASIC + COOKIE + SESSION
                            + ASSIGNMENT + PROSE + URL + CREDENTIAL_FILES + GENERIC_PREFIX))

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_HEX_ID_CHARS = frozenset("0123456789abcdefABCDEFx-:.")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")  # hashes, UUIDs, times written with digits only
PASSWORD_SYMBOLS = frozenset("!#$%&*;?^~|()[]{}<>,'\"`")
_QUOTES = ("'", '"', "`")
MNEMONIC_WORDS = 12  # the shortest BIP-39 recovery phrase
MIN_BARE_TOKEN = 45  # a token in prose with nothing to name it (redact._find_bare_tokens)
MAX_ALONE_TOKEN = 8192  # a field longer than this is no token standing alone
PGPASS = (":*:", ":5432:", ":5433:", ":6432:", ":26257:")
CRYPT = ("$2a$", "$2b$", "$2y$", "$2x$", "$1$", "$5$", "$6$", "$7$", "$y$", "$apr1$", "$argon2")


def has_long_word(text, length) -> bool:
    """Whether some whitespace-separated word of `text` is `length` characters or longer."""
    return max(map(len, text.split()), default=0) >= length


def _starts_a_token(text, prefix) -> bool:
    at = text.find(prefix)
    while at >= 0:
        if at == 0 or text[at - 1] not in _TOKEN_CHARS:
            return True
        at = text.find(prefix, at + 1)
    return False


def could_be_alone_token(text) -> bool:
    """Whether `text` (one field's whole value) could be a secret standing alone (brain/safety/token_shape.py):
    one word of 8 or more characters, mixing letters with digits or cases, or with a symbol; not a path, a URL,
    a UUID, a hash, a time or one of the store's ids."""
    n = len(text)
    if n < 8 or n > MAX_ALONE_TOKEN or text.startswith(("~/", "./", "../", "chunk-")) or "://" in text:
        return False
    if text.startswith("/") and (text.count("/") > 1 or "." in text):
        return False  # a path (a base64 token may start with one "/" too)
    if _HEX_ID_CHARS.issuperset(text):  # (hex alone: a key only at 32, 0x and 64, or 96 and more digits)
        digits = text[2:] if text[:2] in ("0x", "0X") else text
        return all(c in _HEX_DIGITS for c in digits) and (len(digits) == 32 or len(digits) >= 96
                                                           or (digits is not text and len(digits) == 64))
    if any(c.isspace() for c in text):
        return False
    upper, lower, digit, symbol = char_classes(text)
    letters = upper + lower
    if symbol and n <= 64 and letters >= 2 and bool(upper) + bool(lower) + bool(digit) >= 2:
        return True
    body = text[word_prefix_end(text):]
    if _HEX_ID_CHARS.issuperset(body):
        return False  # "project-af8b48ecbb", "build-2026-11-20": a name and a number or hash
    return letters >= 4 and bool(digit or (upper and lower))


def char_classes(text) -> tuple:
    """How many upper-case letters, lower-case letters, digits and password symbols `text` holds."""
    upper = lower = digit = symbol = 0
    for c in text:
        if c.isdigit():
            digit += 1
        elif c.isupper():
            upper += 1
        elif c.islower():
            lower += 1
        elif c in PASSWORD_SYMBOLS:
            symbol += 1
    return upper, lower, digit, symbol


_LOWER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def word_prefix_end(text) -> int:
    """Where a vendor-style prefix of up to three lower-case words, each ending in "_" or "-", ends ("sk_live_",
    "project-"), or 0 (token_shape's _PREFIX, without `re`)."""
    end = 0
    for _ in range(3):
        j = end
        if j >= len(text) or not "a" <= text[j] <= "z":
            break
        j += 1
        while j < len(text) and j - end < 12 and text[j] in _LOWER_ALNUM:
            j += 1
        if j < len(text) and text[j] in "_-":
            end = j + 1
        else:
            break
    return end


def has_typed_password(text) -> bool:
    """A word of 10 to 64 characters mixing upper case, lower case, digits and a password symbol (formats'
    find_typed_passwords judges it)."""
    for word in text.split():
        if len(word) < 10:
            continue  # (stripping only shortens it)
        word = word.strip(".,;:!?\"'()")
        # cheap rejections first, in C: no symbol at all, one case only, no digit (capture scans megabytes)
        if not 10 <= len(word) <= 64 or word.isalnum() or "/" in word or "=" in word \
                or word.lower() == word or word.upper() == word or not any(c.isdigit() for c in word):
            continue
        if all(char_classes(word)):
            return True
    return False


def mixes_all_classes(value) -> bool:
    """Upper case, lower case and digits, all three."""
    upper = lower = digit = False
    for c in value:
        if c.isdigit():
            digit = True
        elif c.isupper():
            upper = True
        elif c.islower():
            lower = True
        if upper and lower and digit:
            return True
    return False


def has_bare_token_shape(text) -> bool:
    """A word of MIN_BARE_TOKEN characters or more that is not a path or a URL and mixes all three classes."""
    if not has_long_word(text, MIN_BARE_TOKEN):
        return False
    for word in text.split():
        word = word.strip("\"'`()[]{}<>,;.")
        if len(word) >= MIN_BARE_TOKEN and not word.startswith(("/", "~")) and "://" not in word \
                and mixes_all_classes(word):
            return True
    return False


def _has_quoted_token(text) -> bool:
    """A quoted word that could be a machine-made token (commands.find_quoted_tokens judges it)."""
    if not any(q in text for q in _QUOTES):
        return False
    for word in text.split():
        if len(word) >= 10 and any(q in word for q in _QUOTES):
            for part in word.replace("`", "'").replace('"', "'").split("'"):
                if len(part) >= 8 and could_be_alone_token(part):
                    return True
    return False


_LAST_MNEMONIC_CHECK = [None, False]  # (text, answer): redact asks twice of one text (triggers, then formats)


def could_hold_mnemonic(text) -> bool:
    """Twelve short lower-case words in a row: the shape of a wallet's recovery phrase (redact checks the words)."""
    if text.count(" ") + text.count("\n") < MNEMONIC_WORDS - 1:
        return False
    if text is _LAST_MNEMONIC_CHECK[0]:
        return _LAST_MNEMONIC_CHECK[1]
    _LAST_MNEMONIC_CHECK[:] = [text, _mnemonic_run(text)]
    return _LAST_MNEMONIC_CHECK[1]


def _mnemonic_run(text) -> bool:
    run = 0
    for word in text.split():
        word = word.strip(".,;:!?\"'()")
        if 3 <= len(word) <= 8 and word.isalpha() and word.islower():
            run += 1
            if run >= MNEMONIC_WORDS:
                return True
        elif not (word.rstrip(".):").isdigit()):  # ("1. abandon 2. ability": numbered words)
            run = 0
    return False


def has_digit_groups(text, groups: int = 8, size: int = 6) -> bool:
    """Eight groups of six digits joined by dashes: the shape of a BitLocker recovery key (formats reads it)."""
    if text.count("-") < groups - 1:
        return False
    parts = text.split("-")
    for i in range(len(parts) - groups + 1):
        if parts[i][-size:].isdigit() and parts[i + groups - 1][:size].isdigit() \
                and all(len(p) == size and p.isdigit() for p in parts[i + 1:i + groups - 1]):
            return True
    return False


def may_hold_secret(text: str) -> bool:
    """False only when no rule of `redact` could fire on `text` (so redacting it would change nothing)."""
    for trigger in SHAPES:
        if trigger in text:
            return True
    lower = text.lower()
    for trigger in LOWER:
        if trigger in lower:
            return True
    stripped = text.strip()
    if could_be_alone_token(stripped):
        return True
    if has_long_word(text, 14):
        for prefix in _LONG_PREFIXES:
            if prefix in text:
                return True
        for prefix in _SHORT_PREFIXES:
            if _starts_a_token(text, prefix):
                return True
    if _has_quoted_token(text) or could_hold_mnemonic(text) or has_bare_token_shape(text) or text.count(",") >= 63 \
            or has_typed_password(text) or has_digit_groups(text):
        return True
    for trigger in PGPASS + CRYPT + FORMAT_MARKS:
        if trigger in text:
            return True
    if any(name in lower for name in CLI_POSITIONAL):
        return True
    # (a time stamp ending in "…47Z" holds "7z": a command name alone is not enough)
    return any(m in lower for m in CLI_MARKERS) and any(name in lower for name in CLI)
