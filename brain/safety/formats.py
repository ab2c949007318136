"""Secrets known by the format of the file or text that holds them, not by a key name or a vendor prefix.

- credential files: .pgpass lines (`host:port:db:user:PASSWORD`), XML settings (`<password>…</password>`,
  NuGet's `<add key="ClearTextPassword" value="…"/>`), PHP's `define('AUTH_KEY', '…')` and other calls naming a
  secret as a string, crypt(3) password hashes (`$6$…`, `$2y$…`, `$apr1$…`, `$argon2id$…`) as .htpasswd and
  /etc/shadow hold them;
- private-key files other than PEM: PuTTY's .ppk (`Private-Lines:`), minisign and signify secret keys, a JWK's
  private members (`"d"`, `"p"`, `"q"`…), a Solana keypair file (64 numbers), and a PEM block whose BEGIN line was
  cut off (its base64 lines before `-----END … PRIVATE KEY-----`);
- wallets' recovery phrases: 12 to 24 words of BIP-39's list in a row (brain/safety/bip39.py, loaded only then);
- Basic credentials anywhere (`Basic dXNlcjpwYXNz`: base64 of `user:password`), and session cookies named as such
  (`sessionid=…`, `PHPSESSID=…`, `connect.sid=…`) without a Cookie header.
Each finder yields `(kind, start, end)`; every repeat is bounded.
"""
import binascii
import re

from brain.safety import triggers
from brain.safety.shapes import is_hex, is_placeholder, looks_like_password, looks_random
from brain.safety.token_shape import alone_token_kind

# A name that ends with a secret's word ("ClearTextPassword", "AUTH_KEY", "apiToken", "SECURE_AUTH_SALT").
_SECRET_NAME = re.compile(r"(?:pass(?:word|wd|phrase)?|secret|token|api_?key|apikey|private_?key|credentials?|"
                          r"auth_?key|salt|pwd|psk|signing_?key|access_?key)s?$", re.IGNORECASE)

# --- credential files -------------------------------------------------------------------------------------------

_PGPASS = re.compile(r"(?m)(?<![^\s])[A-Za-z0-9_.*-]{1,253}:(?:[0-9]{1,5}|\*):[^:\s]{1,128}:[^:\s]{1,128}:(\S{1,512})$")
PGPASS_TRIGGERS = triggers.PGPASS


def find_pgpass(text, lower):
    for m in _PGPASS.finditer(text):
        if not is_placeholder(m.group(1)):
            yield "password", m.start(1), m.end(1)


_XML_ELEMENT = re.compile(r"<([A-Za-z_][\w.:-]{0,63})>([^<>\n]{1,1024})(?:</\1>|<|\n|$)")  # (a cut element too)
_XML_ADD = re.compile(r"<add\s+key=[\"']([^\"'<>]{1,128})[\"']\s+value=[\"']([^\"'<>]{1,1024})[\"']", re.IGNORECASE)


def find_xml_secrets(text, lower):
    """`<password>PW</password>`, `<apiKey>K</apiKey>` (Maven, Jenkins, NuGet...) and `<add key="…Password"
    value="PW"/>`."""
    for m in _XML_ELEMENT.finditer(text):
        if _SECRET_NAME.search(m.group(1)) and _strong_value(m.group(2)):
            yield "password" if "pass" in m.group(1).lower() else "secret", m.start(2), m.end(2)
    for m in _XML_ADD.finditer(text):
        if _SECRET_NAME.search(m.group(1)) and _strong_value(m.group(2)):
            yield "password" if "pass" in m.group(1).lower() else "secret", m.start(2), m.end(2)


# A call naming a secret as its first string and giving its value as the second: define('AUTH_KEY', '…'),
# Map.of("password", "…"), headers.set("X-Api-Key", "…"), a setenv call given a secret's name.
_NAMED_PAIR = re.compile(r"([\"'])([A-Za-z0-9_.-]{1,64})\1[ \t]*,[ \t]*([\"'])([^\"'\n]{4,1024})\3")


def find_named_pairs(text, lower):
    for m in _NAMED_PAIR.finditer(text):
        value = m.group(4)
        if _SECRET_NAME.search(m.group(2)) and _strong_value(value) and (looks_random(value, 12)
                                                                        or looks_like_password(value)):
            yield "password" if "pass" in m.group(2).lower() else "secret", m.start(4), m.end(4)


def _strong_value(value) -> bool:
    v = value.strip()
    return len(v) >= 4 and not is_placeholder(v) and not v.startswith(("${", "{{", "%(", "$("))


_CRYPT_HASH = re.compile(r"\$(?:2[abxy]?|1|5|6|7|y|apr1|argon2(?:id|i|d))\$[A-Za-z0-9./$=,+-]{20,200}")
CRYPT_TRIGGERS = triggers.CRYPT


def find_crypt_hashes(text, lower):
    """Password hashes in crypt(3) form: a cracker's input, kept out like the password itself."""
    for m in _CRYPT_HASH.finditer(text):
        yield "password", m.start(), m.end()


# --- private-key files other than PEM ---------------------------------------------------------------------------

_PPK = re.compile(r"Private-Lines:[ \t]*[0-9]{1,3}[ \t]*\r?\n?[ \t]*"
                  r"((?:[A-Za-z0-9+/=]{4,128}[ \t]*\r?\n?[ \t]*){0,200}[A-Za-z0-9+/=]{4,128})(?![A-Za-z0-9+/=-])"
                  r"(?:[ \t]*\r?\n?[ \t]*Private-MAC:[ \t]*([0-9a-fA-F]{16,128}))?")


def find_putty_keys(text, lower):
    for m in _PPK.finditer(text):
        yield "private_key", m.start(1), m.end(2) if m.group(2) else m.end(1)


_UNTRUSTED_SECRET = re.compile(r"untrusted comment:[^\n]{0,200}secret key[^\n]{0,100}\r?\n([A-Za-z0-9+/=]{40,400})")


def find_minisign_keys(text, lower):
    """minisign and signify secret keys: a comment line saying so, then one line of base64."""
    for m in _UNTRUSTED_SECRET.finditer(text):
        yield "private_key", m.start(1), m.end(1)


_JWK_PRIVATE = re.compile(r"[\"'](d|p|q|dp|dq|qi|k)[\"'][ \t]*:[ \t]*[\"']([A-Za-z0-9_-]{16,4096})[\"']")


def find_jwk_private(text, lower):
    """The private members of a JSON Web Key (its "kty" says it is one): d, p, q, dp, dq, qi; k of a symmetric key."""
    for m in _JWK_PRIVATE.finditer(text):
        yield "private_key", m.start(2), m.end(2)


_BYTE_ARRAY = re.compile(r"\[[ \t\n]*(?:[0-9]{1,3}[ \t\n]*,[ \t\n]*){63}[0-9]{1,3}[ \t\n]*\]")


def find_keypair_arrays(text, lower):
    """A keypair file as Solana's CLI writes it: a JSON array of exactly 64 bytes."""
    for m in _BYTE_ARRAY.finditer(text):
        if all(int(n) < 256 for n in re.findall(r"[0-9]+", m.group())):
            yield "private_key", m.start(), m.end()


_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BASE64_BEFORE = re.compile(r"(?<![^\s])[A-Za-z0-9+/=]{16,128}\s+\Z")


def find_pem_tails(text, lower):
    """A PEM block cut before its BEGIN line (a tail kept by a preview): the base64 lines before its END line."""
    for m in _PEM_END.finditer(text):
        if "-----BEGIN" in text[max(0, m.start() - 8192):m.start()]:
            continue  # a whole block: the private-key rule takes it
        start = m.start()
        while True:  # back over the base64 lines (or words, when the lines were joined) before the END line
            word = _BASE64_BEFORE.search(text, max(0, start - 200), start)
            if word is None:
                break
            start = word.start()
        yield "private_key", start, m.end()


# --- wallets ----------------------------------------------------------------------------------------------------

_WORD_RUN = re.compile(r"(?<![a-z])(?:[a-z]{3,8}(?:[ \t]{1,4}|[ \t]*\r?\n[ \t]*(?:[0-9]{1,2}[.):][ \t]*)?)){11,200}"
                       r"[a-z]{3,8}(?![a-z])")
_PHRASE_LENGTHS = (24, 21, 18, 15, 12)


def find_recovery_phrases(text, lower):
    """12, 15, 18, 21 or 24 words of BIP-39's list in a row: a wallet's recovery phrase."""
    if not triggers.could_hold_mnemonic(text):
        return
    from brain.safety.bip39 import WORDS  # 2,048 words: loaded only for a text that may hold a phrase

    for m in _WORD_RUN.finditer(lower):
        words = list(re.finditer(r"[a-z]{3,8}", m.group()))
        run = []
        for w in words + [None]:
            if w is not None and w.group() in WORDS:
                run.append(w)
                continue
            if len(run) >= 12 and len({w.group() for w in run}) >= 0.75 * len(run):  # ("word word word…": no)
                yield "private_key", m.start() + run[0].start(), m.start() + run[-1].end()
            run = []


# --- Basic credentials and session cookies outside their headers ------------------------------------------------

_BASIC = re.compile(r"basic[ \t]+([a-z0-9+/]{8,1024}={0,2})(?![a-z0-9+/=])")


def find_basic_credentials(text, lower):
    for m in _BASIC.finditer(lower):
        value = text[m.start(1):m.end(1)]
        data = value + "=" * (-len(value) % 4)
        try:
            decoded = binascii.a2b_base64(data).decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
        user, colon, password = decoded.partition(":")
        if colon and password and " " not in decoded and decoded.isprintable():
            yield "basic_auth", m.start(1), m.end(1)


_SESSION_COOKIE = re.compile(r"(?:sess(?:ion)?(?:[_-]?id)?|sid)=[\"']?([a-z0-9%._~+/=-]{16,4096})")


def find_session_cookies(text, lower):
    """A session id after its cookie's name (sessionid=, PHPSESSID=, connect.sid=, _session_id=), with no Cookie
    header around it: machine-made values only."""
    for m in _SESSION_COOKIE.finditer(lower):
        value = text[m.start(1):m.end(1)].rstrip(".,;")
        if looks_random(value) and not is_placeholder(value):
            yield "token", m.start(1), m.start(1) + len(value)


# --- formats known by a mark of their own ----------------------------------------------------------------------

# Whole URIs that are secrets: an authenticator's otpauth:// (its label and secret together make the credential) and
# a Teams webhook (its secret is spread over several segments).
_WHOLE_URI = re.compile(r"(?:otpauth(?:-migration)?://|https://[a-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/)"
                        r"[^\s\"'`<>]{8,4096}")
_OTP_SECRET = re.compile(r"[?&](?:secret|data)=[^&\s]{8,}", re.IGNORECASE)
_SLACK_FILE = re.compile(r"slack-files\.com/[A-Z0-9]{8,12}-[A-Z0-9]{8,12}-([a-f0-9]{8,32})")
_FCM_KEY = re.compile(r"(?<![A-Za-z0-9_-])AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,400}")
# An AWS secret key written after its access key id ("AKIA… / secret", "AKIA…:secret", "the secret for the AKIA…
# user is …"): 40 characters of base64's alphabet within a few words of the id.
_AWS_PAIR = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])(?:[^\n]{0,60}?)"
                       r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40,44})(?![A-Za-z0-9/+=])")  # (SES SMTP: 44)
# `cat` of a file named for a secret, then its content: the content is the secret (master.key,
# initialAdminPassword, .vault-token).
_CAT_SECRET = re.compile(r"cat[ \t]+[^\n|;&>]{0,200}(?:key|secret|token|password|passwd|credential)[^\n|;&>]{0,60}"
                         r"\r?\n[ \t]*([^\s]{8,512})[ \t]*(?=\r?\n|$)", re.IGNORECASE)
_WIFI_QR = re.compile(r"WIFI:(?:[^;\n]{0,64};){0,4}P:((?:[^;\\\n]|\\.){1,128});")
_BITLOCKER = re.compile(r"(?<![0-9-])[0-9]{6}(?:-[0-9]{6}){7}(?![0-9-])")
_BUNDLER = re.compile(r"BUNDLE_[A-Z0-9_]{1,100}__[A-Z0-9_]{1,100}[ \t]*[=:][ \t]*[\"']?([^\s\"']{4,512})")
_URL_PATH_TOKEN = re.compile(r"://[^\s/\"'`<>]{1,253}(/[^\s\"'`<>?#]{1,2048})")
_FORMAT_MARKS = ("otpauth", "webhook.office.com", "slack-files.com", ":APA91b", "AKIA", "ASIA", "cat ", "WIFI:",
                 "BUNDLE_", "://")


def find_format_secrets(text, lower):
    if not any(mark in text for mark in _FORMAT_MARKS) and not triggers.has_digit_groups(text):
        return
    for m in _WHOLE_URI.finditer(text):
        if not m.group().startswith("otpauth") or _OTP_SECRET.search(m.group()):  # (no secret in it: a label)
            yield "secret", m.start(), m.end()
    for m in _FCM_KEY.finditer(text):
        yield "secret", m.start(), m.end()
    for pattern, kind in ((_SLACK_FILE, "secret"), (_AWS_PAIR, "aws_secret_key"), (_CAT_SECRET, "secret"),
                          (_WIFI_QR, "password"), (_BUNDLER, "password")):
        for m in pattern.finditer(text):
            if not is_placeholder(m.group(1)):
                yield kind, m.start(1), m.end(1)
    for m in _BITLOCKER.finditer(text):
        yield "password", m.start(), m.end()
    for m in _URL_PATH_TOKEN.finditer(text):  # a capability in a URL's path (an RPC provider's /v2/<key>)
        at = m.start(1)
        for piece in m.group(1).split("/"):
            if len(piece) >= 24 and not is_hex(piece) and alone_token_kind(piece) == "token":
                yield "url_credentials", at, at + len(piece)
            at += len(piece) + 1


# "VPN login: mira.okafor / More_peace8813#", "log in with admin / BMv5!75E2O#xDl": a user, a slash, a password.
_LOGIN_PAIR = re.compile(r"(?:login|log in|sign in|signin|user(?:name)?|credentials?)\b[^\n/]{0,30}?"
                         r"[\w.@+-]{2,64}[ \t]+/[ \t]+([^\s/]{6,128})")


def find_login_pairs(text, lower):
    for m in _LOGIN_PAIR.finditer(lower):
        value = text[m.start(1):m.end(1)].rstrip(".,;:)")
        if looks_like_password(value) and any(not c.isalnum() for c in value) or looks_random(value):
            yield "password", m.start(1), m.start(1) + len(value)


# A password standing in a sentence with no word to name it ("root on the NAS is CNshRZPlD#8V"): upper case, lower
# case, digits and a symbol in one word of 10 to 64 characters, none of the marks of code (a slash, =, brackets).
_TYPED_SYMBOLS = frozenset("!#$&*?^~")  # (not "%": user%password, URL encoding; not ";" or ",": lists)
_TYPED_WORD = re.compile(r"(?<![^\s\"'`(])[^\s\"'`()\[\]{}<>/=]{10,64}(?![^\s\"'`.,;:!?)])")


def find_typed_passwords(text, lower):
    for m in _TYPED_WORD.finditer(text):
        word = m.group().rstrip(".,;:!?")
        upper, lower_count, digit, _ = triggers.char_classes(word)
        if upper and lower_count and digit and any(c in _TYPED_SYMBOLS for c in word) \
                and not word.startswith(("$", "%", "@", "#", "-")) and "@" not in word[1:-1] and ":" not in word \
                and not is_placeholder(word):
            yield "password", m.start(), m.start() + len(word)
