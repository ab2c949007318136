"""Secrets recognised by their shape alone, and how a value is judged: the finders `redact` runs besides key=value.

Three families, each built for the kind rather than for a list of examples:
- service tokens: a vendor prefix (`AIza`, `SG.`, `npm_`, `hf_`, `shpat_`, `dop_v1_`, ...) followed by a body of the
  vendor's alphabet and length (SERVICE_TOKENS; one table, one scan for long tokens, a dict lookup per token);
- URLs: credentials in the user part with or without a user (`redis://:pw@host`, `https://<token>@host`), secret
  query parameters (`sig=`, `X-Amz-Signature=`, `access_token=`), and webhook paths (Discord, Slack, Teams, ...);
- command lines: the password flags of common CLIs (`mysql -pPW`, `sshpass -p PW`, `curl -u user:pw`,
  `docker login -p PW`, `redis-cli -a PW`, ...) and long flags naming a secret (`--password PW`, `-storepass PW`).

Each finder yields `(kind, start, end)` spans; every repeat is bounded or runs over a class the next token cannot
extend, and a line or URL is examined once, so adversarial input stays linear (tests/test_redact.py).
"""
import re

from brain.safety import triggers

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
required yes no off on env placeholder example dummy prompt stdin
""".split())
_PLACEHOLDER_RE = re.compile(
    r"""(?xs)
    \$.*                                   # $VAR ${VAR} $(cmd): the shell expands these
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


def is_placeholder(value):
    """True for values that are clearly not a secret: empty, masks, variable references, type names, the
    "YOUR_API_KEY" family of stand-ins."""
    v = value.strip()
    if not v or _MASK_RE.fullmatch(v) or _PLACEHOLDER_RE.fullmatch(v) or v.lower() in _PLACEHOLDER_WORDS:
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
    return wordy * 2 < len(value)


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
    return value.startswith(("/", "~", "./", "../", "\\")) or "://" in value or value[1:3] == ":\\"


# --- service tokens: a prefix and a body ------------------------------------------------------------------

# (prefix, kind, body pattern[, check]). The body follows the prefix directly and the token must not run on past
# it. check "random": the body must look machine-made or be hex (placeholders such as npm_XXXX… survive);
# None: the shape is distinctive enough on its own.
SERVICE_TOKENS = (
    ("AKIA", "aws_access_key", r"[A-Z0-9]{16}", None),
    ("ASIA", "aws_access_key", r"[A-Z0-9]{16}", None),
    ("ghp_", "github_token", r"[A-Za-z0-9]{30,}", None),
    ("gho_", "github_token", r"[A-Za-z0-9]{30,}", None),
    ("ghu_", "github_token", r"[A-Za-z0-9]{30,}", None),
    ("ghs_", "github_token", r"[A-Za-z0-9]{30,}", None),
    ("ghr_", "github_token", r"[A-Za-z0-9]{30,}", None),
    ("github_pat_", "github_token", r"[A-Za-z0-9_]{22,}", None),
    *(("gl" + kind + "-", "gitlab_token", r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*", None)
      for kind in ("pat", "dt", "rt", "ptt", "cbt", "soat", "oas", "ft", "imt", "agent")),
    ("sk-ant-", "anthropic_key", r"[A-Za-z0-9_-]{20,}", None),
    ("sk-", "openai_key", r"(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}"),  # "sk-learn-…" slugs: random only
    *(("xox" + c + "-", "slack_token", r"[A-Za-z0-9-]{10,}", None) for c in "abposre"),
    ("xapp-", "slack_token", r"[0-9]-[A-Za-z0-9-]{20,}", None),
    *((p, "stripe_key", r"[A-Za-z0-9]{10,}", None) for p in ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    ("whsec_", "stripe_key", r"[A-Za-z0-9]{20,}", None),
    ("eyJ", "jwt", r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", None),
    *((p, "discord_token", r"[A-Za-z0-9_-]{21,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}")
      for p in triggers.DISCORD_STARTS),
    ("AIza", "google_api_key", r"[A-Za-z0-9_-]{35}"),
    ("GOCSPX-", "service_token", r"[A-Za-z0-9_-]{24,40}"),
    ("ya29.", "service_token", r"[A-Za-z0-9_.-]{30,2048}"),
    ("SG.", "sendgrid_key", r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    ("npm_", "npm_token", r"[A-Za-z0-9]{36}"),
    ("pypi-", "pypi_token", r"[A-Za-z0-9_-]{50,512}"),
    ("hf_", "huggingface_token", r"[A-Za-z]{30,40}"),
    ("api_org_", "huggingface_token", r"[A-Za-z]{30,40}"),
    ("shpat_", "shopify_token", r"[a-fA-F0-9]{32}"),
    ("shpss_", "shopify_token", r"[a-fA-F0-9]{32}"),
    ("shpca_", "shopify_token", r"[a-fA-F0-9]{32}"),
    ("shppa_", "shopify_token", r"[a-fA-F0-9]{32}"),
    ("dop_v1_", "digitalocean_token", r"[a-f0-9]{64}"),
    ("doo_v1_", "digitalocean_token", r"[a-f0-9]{64}"),
    ("dor_v1_", "digitalocean_token", r"[a-f0-9]{64}"),
    ("key-", "mailgun_key", r"[a-zA-Z0-9]{32}"),
    ("xkeysib-", "service_token", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("xsmtpsib-", "service_token", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("sq0atp-", "service_token", r"[A-Za-z0-9_-]{22,60}"),
    ("sq0csp-", "service_token", r"[A-Za-z0-9_-]{40,60}"),
    ("ATATT", "service_token", r"[A-Za-z0-9_=+/-]{40,400}"),
    ("PMAK-", "service_token", r"[a-f0-9]{24}-[a-f0-9]{34}"),
    ("NRAK-", "service_token", r"[A-Z0-9]{27}"),
    ("NRII-", "service_token", r"[A-Za-z0-9_-]{32}"),
    ("hvs.", "service_token", r"[A-Za-z0-9_-]{24,400}"),
    ("hvb.", "service_token", r"[A-Za-z0-9_-]{24,400}"),
    ("hvr.", "service_token", r"[A-Za-z0-9_-]{24,400}"),
    ("dp.pt.", "service_token", r"[A-Za-z0-9]{40,64}"),
    ("dp.st.", "service_token", r"[A-Za-z0-9_.-]{40,80}"),
    ("dp.ct.", "service_token", r"[A-Za-z0-9]{40,64}"),
    ("dp.sa.", "service_token", r"[A-Za-z0-9]{40,64}"),
    ("dp.scim.", "service_token", r"[A-Za-z0-9]{40,64}"),
    ("figd_", "service_token", r"[A-Za-z0-9_-]{38,64}"),
    ("lin_api_", "service_token", r"[A-Za-z0-9]{30,64}"),
    ("ntn_", "service_token", r"[A-Za-z0-9]{40,60}"),
    ("sbp_", "service_token", r"[a-f0-9]{40}"),
    ("sb_secret_", "service_token", r"[A-Za-z0-9_-]{20,64}"),
    ("nfp_", "service_token", r"[A-Za-z0-9]{36,48}"),
    ("fo1_", "service_token", r"[A-Za-z0-9_-]{40,64}"),
    ("rnd_", "service_token", r"[A-Za-z0-9]{24,48}"),
    ("pul-", "service_token", r"[a-f0-9]{40}"),
    ("AGE-SECRET-KEY-1", "private_key", r"[0-9A-Z]{58}"),
    ("LTAI", "service_token", r"[A-Za-z0-9]{12,24}"),
    ("AKID", "service_token", r"[A-Za-z0-9]{32}"),
    ("dapi", "service_token", r"[a-f0-9]{32}(?:-[0-9])?"),
    ("gsk_", "service_token", r"[A-Za-z0-9]{48,56}"),
    ("r8_", "service_token", r"[A-Za-z0-9]{37}"),
    ("pplx-", "service_token", r"[A-Za-z0-9]{40,56}"),
    ("xai-", "service_token", r"[A-Za-z0-9]{60,90}"),
    ("dckr_pat_", "service_token", r"[A-Za-z0-9_-]{27}"),
    ("sntrys_", "service_token", r"[A-Za-z0-9_=+/-]{40,400}"),
    ("sntryu_", "service_token", r"[a-f0-9]{64}"),
    ("glc_", "service_token", r"[A-Za-z0-9_=+/-]{32,400}"),
    ("glsa_", "service_token", r"[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    ("CFPAT-", "service_token", r"[A-Za-z0-9_-]{43}"),
    ("sk.eyJ", "service_token", r"[A-Za-z0-9_.-]{50,400}"),
    ("EZAK", "service_token", r"[A-Za-z0-9]{54}"),
    ("EZTK", "service_token", r"[A-Za-z0-9]{54}"),
    ("shippo_live_", "service_token", r"[a-f0-9]{40}"),
    ("shippo_test_", "service_token", r"[a-f0-9]{40}"),
    ("HRKU-", "service_token", r"[A-Za-z0-9_-]{40,70}"),
    ("ops_eyJ", "service_token", r"[A-Za-z0-9_.-]{100,2000}"),
    ("tskey-", "service_token", r"[a-z]{3,8}-[A-Za-z0-9]{10,20}-[A-Za-z0-9]{20,40}"),
    ("sl.", "service_token", r"[A-Za-z0-9_-]{100,2000}"),  # Dropbox
    ("AKCp", "service_token", r"[A-Za-z0-9]{60,80}"),  # JFrog
    ("aio_", "service_token", r"[A-Za-z0-9]{28}"),  # Adafruit IO
    ("CLOJARS_", "service_token", r"[a-f0-9]{60}"),
    ("pnu_", "service_token", r"[A-Za-z0-9]{36}"),  # Prefect
    ("rdme_", "service_token", r"[a-z0-9]{70}"),  # ReadMe
    ("rubygems_", "service_token", r"[a-f0-9]{48}"),
    ("tk-us-", "service_token", r"[A-Za-z0-9_-]{48}"),  # Scalingo
    ("tfp_", "service_token", r"[A-Za-z0-9_-]{40,60}"),  # Typeform
    ("ATBB", "service_token", r"[A-Za-z0-9_=.-]{32,}"),  # Bitbucket
    ("ATCTT", "service_token", r"[A-Za-z0-9_=+/-]{40,400}"),
    ("bkua_", "service_token", r"[a-f0-9]{40}"),  # Buildkite
    ("CCIPAT_", "service_token", r"[A-Za-z0-9_]{40,}"),  # CircleCI
    ("duffel_live_", "service_token", r"[A-Za-z0-9_-]{43}"),
    ("duffel_test_", "service_token", r"[A-Za-z0-9_-]{43}"),
    ("dt0c01.", "service_token", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", None),  # Dynatrace
    ("EAACEdEose0cBA", "service_token", r"[A-Za-z0-9]{20,}"),  # Facebook
    ("FLWSECK", "service_token", r"(?:_TEST)?-[a-h0-9]{32}-X", None),  # Flutterwave
    ("rzp_live_", "service_token", r"[A-Za-z0-9]{14,}"),  # Razorpay
    ("fio-u-", "service_token", r"[A-Za-z0-9_=-]{64}"),  # Frame.io
    ("AC", "twilio_key", r"[a-f0-9]{32}", None),
    ("SK", "twilio_key", r"[a-f0-9]{32}", None),
    # a private key written in base64 (kubeconfig's client-key-data, a Kubernetes secret): "-----BEGIN … PRIVATE"
    *((p, "private_key", r"[A-Za-z0-9+/=]{16,}", None) for p in (
        "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBL", "LS0tLS1CRUdJTiBQUklWQVRFIEtF", "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtF",
        "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZ", "LS0tLS1CRUdJTiBFTkNSWVBURUQgUFJJVkFURSBL",
        "LS0tLS1CRUdJTiBEU0EgUFJJVkFURSBL", "LS0tLS1CRUdJTiBQR1AgUFJJVkFURSBLRVkgQkxP")),
)
# Beyond the table: a vendor we do not list, whose prefix still says what it is ("pscale_tkn_…", "lin_oauth_…",
# "acme_api_…"): one of these words in the prefix, then a machine-made body.
GENERIC_PREFIX_WORDS = frozenset(("tkn", "token", "tok", "key", "secret", "sec", "pat", "api", "auth", "oauth",
                                  "pw", "pwd", "pass", "cred", "sk", "access", "refresh", "bearer"))
_GENERIC_TOKEN = re.compile(r"([a-z][a-z0-9]{1,11}(?:[_-][a-z0-9]{1,11}){0,3})[_-]([A-Za-z0-9]{20,512})(?![A-Za-z0-9])")
_AFTER_TOKEN = r"(?![A-Za-z0-9])"  # ("-" or "_" may follow: "session-ghp_…-155")
_BY_START = {}  # first two characters -> [(prefix, kind, body pattern, check)], longest prefix first
for _entry in sorted(SERVICE_TOKENS, key=lambda e: -len(e[0])):
    _BY_START.setdefault(_entry[0][:2], []).append((*_entry[:3], _entry[3] if len(_entry) > 3 else "random"))
_COMPILED = {}  # prefix -> its whole pattern, compiled the first time a text holds the prefix (hooks load this)


def _pattern(prefix, body):
    pattern = _COMPILED.get(prefix)
    if pattern is None:
        pattern = _COMPILED[prefix] = re.compile(re.escape(prefix) + "(?:" + body + ")" + _AFTER_TOKEN)
    return pattern
assert all(any(t in e[0] for t in triggers.CASED) for e in SERVICE_TOKENS), "a prefix is missing a trigger"
MIN_TOKEN = 14  # the shortest token of the table (an xoxb- Slack token) has 15 characters
_LONG_RUN = re.compile(r"[A-Za-z0-9_.\-]{%d,}" % MIN_TOKEN)
_HEX32 = re.compile(r"(?<![A-Za-z0-9])[a-f0-9]{32}(?![A-Za-z0-9])")


def has_long_word(text) -> bool:
    """Whether some whitespace-separated word is MIN_TOKEN characters or longer: every token of the table is,
    and prose mostly is not, so this one cheap split spares most text the scan below."""
    return max(map(len, text.split()), default=0) >= MIN_TOKEN


# Prefixes distinctive enough to count even when glued to a word before them ("session-ghp_…", "x_AKIA…"); the
# others ("sk-", "key-", "AC") need a real token start ("task-sk-list" is a slug).
GLUED_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-",
                  "sk-ant-", "sk_live_", "rk_live_", "AKIA", "ASIA", "AIza", "npm_", "hf_", "shpat_", "dop_v1_",
                  "pypi-", "SG.", "dckr_pat_", "hvs.")
_GLUED = re.compile(r"[-_.](?=" + "|".join(re.escape(p) for p in GLUED_PREFIXES) + ")")
_GLUED_MIN_RUN = 30  # shorter runs cannot hold a word, a separator and a whole token


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


def _generic_token(text, pos):
    m = _GENERIC_TOKEN.match(text, pos)
    if m is None:
        return
    words = set(m.group(1).replace("-", "_").split("_"))
    body = m.group(2)
    if words & GENERIC_PREFIX_WORDS and (is_hex(body) and len(body) >= 32 or looks_random(body, min_length=20)
                                         and sum(1 for c in _CHAR_CLASSES if c.search(body)) == 3):
        yield "service_token", pos, m.end()


def _token_at(text, pos):
    """The table's token starting at `pos`, if any (the longest prefix that matches decides)."""
    for prefix, kind, body, check in _BY_START.get(text[pos:pos + 2], ()):
        token = _pattern(prefix, body).match(text, pos) if text.startswith(prefix, pos) else None
        if token is None:
            continue
        body = token.group()[len(prefix):]
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
# Tokens whose mark is in the middle: Terraform Cloud (`<14>.atlasv1.<60+>`), Mailchimp (`<32 hex>-us12`).
_INFIX_TOKENS = ((".atlasv1.", re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}")),
                 ("-us", re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])")))


def find_infix_tokens(text, lower):
    for infix, pattern in _INFIX_TOKENS:
        at = text.find(infix)
        while at >= 0:  # from each infix back to where such a token would start, then one anchored match
            m = pattern.match(text, max(0, at - 32 if infix == "-us" else at - 14))
            if m:
                yield "service_token", m.start(), m.end()
            at = text.find(infix, at + len(infix))


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
    "auth": "token", "code": "token",
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


# --- command lines ----------------------------------------------------------------------------------------

# command -> how it takes a password on its command line:
#   glued: flags whose remainder is the password (`mysql -pPW`); next: flags whose next word is the password;
#   userpass: flags whose next word is user<sep>password; needs: a subcommand that must come first (`login`).
_MYSQL = {"glued": ("-p", "--password=")}
_LOGIN = {"next": ("-p", "--password"), "needs": "login"}
_CLI_COMMANDS = {
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlbinlog",
                     "mysqlsh", "mysqlpump", "mariadb", "mariadb-dump", "mariadb-admin"), _MYSQL),
    "sshpass": {"glued": ("-p",), "next": ("-p",)},
    **dict.fromkeys(("docker", "podman", "nerdctl", "buildah", "oras", "helm", "crane", "finch"), _LOGIN),
    "az": {"next": ("-p", "--password"), "needs": "login"},
    "skopeo": {"userpass": ("--creds", "--src-creds", "--dest-creds"), "sep": ":"},
    "redis-cli": {"next": ("-a", "--pass")},
    **dict.fromkeys(("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd",
                     "ldapcompare", "ldapmodrdn", "ldapexop"), {"next": ("-w",)}),
    **dict.fromkeys(("sqlcmd", "bcp", "osql", "isql"), {"next": ("-P",)}),
    **dict.fromkeys(("7z", "7za", "7zr", "unrar", "rar"), {"glued": ("-p", "-hp")}),
    **dict.fromkeys(("zip", "unzip", "zipcloak"), {"next": ("-P",)}),
    **dict.fromkeys(("curl", "wget2"), {"userpass": ("-u", "--user", "-U", "--proxy-user"), "sep": ":"}),
    "lftp": {"userpass": ("-u",), "sep": ","},
    **dict.fromkeys(("smbclient", "rpcclient", "smbmap", "smbget"), {"userpass": ("-U", "--user"), "sep": "%"}),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat",
                     "mongotop", "mongofiles"), {"next": ("-p",)}),
    **dict.fromkeys(("mosquitto_pub", "mosquitto_sub", "mosquitto_rr", "ipmitool"), {"next": ("-P",)}),
    **dict.fromkeys(("xfreerdp", "wlfreerdp", "sdl-freerdp", "xfreerdp3"), {"glued": ("/p:",)}),
    "rdesktop": {"next": ("-p",)},
    **dict.fromkeys(("snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpgetnext", "snmptrap"),
                    {"next": ("-A", "-X")}),
    "openssl": {"passarg": ("-passin", "-passout", "-pass", "-passarg"), "next": ("-k",)},
    "htpasswd": {"htpasswd": True},
    "gh": {"next": ("-b", "--body"), "needs": "secret"},
    "vault": {"next": ("login",)},  # vault login TOKEN
}
_CLI_NAMES = tuple(sorted({name for name in _CLI_COMMANDS if len(name) >= 4} | {"7z", "az", "rar", "zip", "bcp",
                                                                               "gh", "config"}))
assert all(any(t in name for t in triggers.CLI) for name in _CLI_NAMES), "a command is missing a trigger"
_SHELL_WORD = re.compile(r"\"[^\"\n]{0,512}\"|'[^'\n]{0,512}'|[|;&]+|[^\s|;&\"']+(?:\"[^\"\n]{0,512}\"|'[^'\n]{0,512}')?")
_SECRET_NAME_WORDS = ("secret", "token", "password", "passwd", "api_key", "apikey", "api-key", "authtoken",
                      "access_key", "private_key")
_LINE_CAP = 4096  # characters of one command line examined


def find_cli_secrets(text, lower):
    # A password on a command line follows a flag (" -p"), "set"/"config" or `vault login`: only lines holding
    # one of those and a command name are read word by word.
    lines = set()
    for marker in triggers.CLI_MARKERS:
        at = lower.find(marker)
        while at >= 0:
            start = lower.rfind("\n", 0, at) + 1
            lines.add(start)
            end = lower.find("\n", at)
            at = -1 if end < 0 else lower.find(marker, end)
    names = [name for name in _CLI_NAMES if name in lower] if lines else ()
    for start in sorted(lines) if names else ():
        end = lower.find("\n", start)
        end = min(len(text) if end < 0 else end, start + _LINE_CAP)
        line = lower[start:end]
        if any(name in line for name in names):
            yield from _command_line(text, start, end)


def _unquoted(word, start):
    """(value, start, end) of a shell word without its quotes."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return word[1:-1], start + 1, start + len(word) - 1
    return word, start, start + len(word)


def _command_line(text, start, end, nested=False):
    spec, ready, expect, positional, config_value = None, False, None, [], False
    for m in _SHELL_WORD.finditer(text, start, end):
        word = m.group()
        value, v_start, v_end = _unquoted(word, m.start())
        if word[0] in "|;&":
            spec, ready, expect, positional = None, False, None, []
            continue
        if not nested and word[0] in "\"'" and " " in value:  # sh -c "mysql -p…", {"cmd": "curl -u …"}
            yield from _command_line(text, v_start, v_end, nested=True)
        if expect is not None:
            kind, sep = expect
            expect = None
            if sep:
                _, found, value = value.partition(sep)
                if not found:
                    continue
                v_start = v_end - len(value)
            if kind == "passarg":
                scheme, found, value = value.partition(":")
                if not found or scheme != "pass":
                    continue
                v_start = v_end - len(value)
            if value and not value.startswith("-") and not is_placeholder(value) and len(value) >= 3:
                yield "password", v_start, v_end
            continue
        if config_value:
            config_value = False
            if value and not is_placeholder(value):
                name = positional[-1]
                yield "password" if "pass" in name else "secret" if "secret" in name else "token", v_start, v_end
            continue
        base = value.lstrip("\"'`($").rsplit("/", 1)[-1].lower()
        if base in _CLI_COMMANDS:
            spec, positional = _CLI_COMMANDS[base], []
            ready = "needs" not in spec
            continue
        if base in ("set", "config") or (positional and positional[-1] in ("set", "config")):
            if positional and positional[-1] in ("set", "config") and any(w in base for w in _SECRET_NAME_WORDS):
                config_value = True
            positional.append(base)
            continue
        if spec is None:
            continue
        if not ready:
            ready = value == spec.get("needs")
            continue
        for flag in spec.get("glued", ()):
            if value.startswith(flag) and len(value) > len(flag) and not (flag == "-p" and value[2:3] == "-"):
                secret, s_start, s_end = _unquoted(value[len(flag):], v_start + len(flag))  # -p'PW'
                if not is_placeholder(secret) and len(secret) >= 3:
                    yield "password", s_start, s_end
                break
        else:
            if value in spec.get("next", ()):
                expect = ("next", None)
            elif value in spec.get("userpass", ()):
                expect = ("userpass", spec["sep"])
            elif value in spec.get("passarg", ()):
                expect = ("passarg", None)
            elif spec.get("htpasswd") and _htpasswd_password(positional, value):
                yield "password", v_start, v_end
            positional.append(value)


def _htpasswd_password(words_before, value) -> bool:
    """htpasswd -b[c] FILE USER PASSWORD (or -nb USER PASSWORD): whether `value` is that last word."""
    if value.startswith("-") or is_placeholder(value):
        return False
    flags = "".join(w[1:] for w in words_before if w.startswith("-"))
    words = [w for w in words_before if not w.startswith("-")]
    return "b" in flags and len(words) == (1 if "n" in flags else 2)


# Long (and a few single-dash) flags that name a secret, in any command: `--password PW`, `--api-key=K`. Found from
# the keyword (rarer than "-") and checked backwards: the word must be a flag whose last part is the keyword.
_FLAG_KEYWORD = re.compile(  # (starts at "-" or "_": the engine skips straight to those characters)
    r"[-_](?P<name>pass(?:word|wd|phrase)?|pwd|storepass|keypass|secret|token|api-?key|apikey|webhook-url)"
    r"(?:[ \t]+|=)")
_FLAG_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
_FLAG_VALUE = re.compile(r"\"[^\"\n]{1,512}\"|'[^'\n]{1,512}'|[^\s\"'|;&]{1,512}")


def _is_flag_end(lower, end):
    """Whether lower[:end] ends with a flag (`--db-password`, `-storepass`) glued to nothing before it."""
    start = end
    while start > 0 and end - start < 64 and lower[start - 1] in _FLAG_NAME_CHARS:
        start -= 1
    word = lower[start:end]
    if not word.startswith("-") or word.startswith("---") or word[1:2] == "_":
        return False
    return start == 0 or not (lower[start - 1].isalnum() or lower[start - 1] in "_-")


def find_secret_flags(text, lower):
    for m in _FLAG_KEYWORD.finditer(lower):
        name = m.group("name")
        if not _is_flag_end(lower, m.end("name")):
            continue
        v = _FLAG_VALUE.match(text, m.end())
        if v is None:
            continue
        value, start, end = _unquoted(v.group(), v.start())
        scheme, colon, rest = value.partition(":")
        if colon and scheme in ("pass", "env", "file", "fd", "stdin"):  # openssl's -pass pass:PW / env:VAR
            if scheme != "pass":
                continue
            value, start = rest, end - len(rest)
        if not value or value.startswith("-") or is_placeholder(value) or looks_like_path(value):
            continue
        if "pass" in name or name == "pwd":
            if len(value) >= 3:
                yield "password", start, end
        elif len(value) >= 8 and (looks_random(value, min_length=8) or any(c.isdigit() for c in value)):
            kind = "webhook" if name == "webhook-url" else "api_key" if "key" in name else "token"
            yield kind, start, end
