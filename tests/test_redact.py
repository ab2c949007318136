"""brain.safety.redact: a hand-made corpus of synthetic secrets and look-alikes, secrets generated at run
time, idempotency, speed, and adversarial input. No value here is a real credential."""

import ast
import json
import random
import re
import string
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.trust_corpus import decode

from brain.safety import redact as redact_module
from brain.safety.redact import KINDS, find_secrets, redact

FIXTURES = Path(__file__).parent / "fixtures" / "secrets"
TRANSCRIPTS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "transcripts"
ALNUM = string.ascii_letters + string.digits


def _fixture_lines(name):
    lines = FIXTURES.joinpath(name).read_text(encoding="utf-8").splitlines()
    return [pytest.param(decode(line), id=f"{name}:{number}")
            for number, line in enumerate(lines, 1) if line.strip() and not line.startswith("#")]


POSITIVES = _fixture_lines("positives.txt")
LOOKALIKES = _fixture_lines("lookalikes.txt")


def _split_positive(case):
    """'kind<TAB>text with «secret»' -> (kind, input text, expected redacted text)."""
    kind, marked = case.split("\t", 1)
    expected = re.sub("«[^»]*»", f"[REDACTED:{kind}]", marked)
    return kind, marked.replace("«", "").replace("»", ""), expected


# --- the corpus ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", POSITIVES)
def test_positive_is_redacted_exactly(case):
    kind, text, expected = _split_positive(case)
    assert redact(text) == expected


@pytest.mark.parametrize("case", LOOKALIKES)
def test_lookalike_survives(case):
    assert find_secrets(case) == []
    assert redact(case) == case


def test_corpus_covers_every_kind():
    covered = {_split_positive(case.values[0])[0] for case in POSITIVES}
    assert covered == set(KINDS)


@pytest.mark.parametrize("case", POSITIVES)
def test_redacting_twice_changes_nothing(case):
    once = redact(_split_positive(case)[1])
    assert redact(once) == once
    assert find_secrets(once) == []


def test_key_names_and_quotes_are_kept():
    assert redact('export SECRET_TOKEN="abc123def456"') == 'export SECRET_TOKEN="[REDACTED:token]"'
    assert redact("DB_PASSWORD=hunter22 # prod") == "DB_PASSWORD=[REDACTED:password] # prod"


def test_unterminated_private_key_is_redacted_to_the_end():
    text = "pasted:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIFAKEFAKE\nstill key material"
    assert redact(text) == "pasted:\n[REDACTED:private_key]"


def test_offsets_survive_letters_whose_lower_case_is_longer():
    # "İ".lower() is two code points; the lower-cased copy must still line up with the original.
    text = "İstanbul İİ password=hunter22 then İ ok"
    assert redact(text) == "İstanbul İİ password=[REDACTED:password] then İ ok"


def test_real_transcripts_pass_through_unchanged():
    files = sorted(TRANSCRIPTS.glob("*.jsonl"))
    if not files:
        pytest.skip("shared transcripts not available")
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert find_secrets(text) == [], path.name


# --- secrets generated at run time -----------------------------------------------------------------------

def _random(rng, length, alphabet=ALNUM):
    return "".join(rng.choice(alphabet) for _ in range(length))


def _bare(make):
    """A generator whose whole text is the secret."""
    return lambda rng: (make(rng),) * 2


def _assigned(template, make):
    """A generator that puts the secret into an assignment; only the value must disappear."""
    def generate(rng):
        secret = make(rng)
        return template.format(secret), secret
    return generate


URL_SAFE = ALNUM + "_-"
# kind -> rng -> (text containing a secret, the part of it that must disappear)
GENERATORS = {
    "aws_access_key": _bare(lambda r: r.choice(["AKIA", "ASIA"])
                            + _random(r, 16, string.ascii_uppercase + string.digits)),
    "aws_secret_key": _assigned("aws_secret_access_key={}", lambda r: _random(r, 40, ALNUM + "/+")),
    "github_token": _bare(lambda r: r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + _random(r, 36)),
    "gitlab_token": _bare(lambda r: "glpat-" + _random(r, 20, URL_SAFE)),
    "anthropic_key": _bare(lambda r: "sk-ant-api03-" + _random(r, 93, URL_SAFE) + "AA"),
    "openai_key": _bare(lambda r: r.choice(["sk-", "sk-proj-"]) + _random(r, 48)),
    "slack_token": _bare(lambda r: f"xox{r.choice('bpas')}-{_random(r, 10, string.digits)}-{_random(r, 24)}"),
    "stripe_key": _bare(lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + _random(r, 24)),
    "jwt": _bare(lambda r: f"eyJ{_random(r, 30, URL_SAFE)}.eyJ{_random(r, 60, URL_SAFE)}.{_random(r, 43, URL_SAFE)}"),
    "url_credentials": _assigned("https://bot:{}@db.example.com/x", lambda r: _random(r, 14)),
    "bearer": _assigned("Authorization: Bearer {}", lambda r: _random(r, 32, ALNUM + "._-")),
    "password": _assigned("password={}", lambda r: _random(r, 12, ALNUM + "!#%^*")),
    "token": _assigned('"access_token": "{}"', lambda r: _random(r, 24)),
    "secret": _assigned("WEBHOOK_SIGNING_KEY={}", lambda r: _random(r, 32)),
    # issue 13's families, each in prose or on a command line rather than in an assignment
    "google_api_key": _bare(lambda r: "AIza" + _random(r, 35, URL_SAFE)),
    "sendgrid_key": _bare(lambda r: f"SG.{_random(r, 22, URL_SAFE)}.{_random(r, 43, URL_SAFE)}"),
    "npm_token": _bare(lambda r: "npm_" + _random(r, 36)),
    "pypi_token": _bare(lambda r: "pypi-AgEIcHlwaS5vcmc" + _random(r, 60, URL_SAFE)),
    "huggingface_token": _bare(lambda r: "hf_" + _random(r, 34, string.ascii_letters)),
    "twilio_key": _bare(lambda r: r.choice(["AC", "SK"]) + _random(r, 32, "0123456789abcdef")),
    "shopify_token": _bare(lambda r: "shpat_" + _random(r, 32, "0123456789abcdef")),
    "digitalocean_token": _bare(lambda r: "dop_v1_" + _random(r, 64, "0123456789abcdef")),
    "mailgun_key": _bare(lambda r: "key-" + _random(r, 32, "0123456789abcdef")),
    "telegram_token": _bare(lambda r: f"{_random(r, 9, string.digits)}:AA{_random(r, 33, URL_SAFE)}"),
    "webhook": _assigned("https://discord.com/api/webhooks/123456789012345678/{}", lambda r: _random(r, 68, URL_SAFE)),
    "azure_sas": _assigned("https://a.blob.core.windows.net/c/f?sv=2022-11-02&sig={}", lambda r: _random(r, 43)),
    "url_credentials/no user": _assigned("redis://:{}@cache:6379/0", lambda r: _random(r, 14)),
}
CLI_GENERATORS = {  # a password on a command line: only the password must disappear
    "mysql": "mysql -u root -p{} app", "sshpass": "sshpass -p {} ssh host", "curl": "curl -u admin:{} https://x",
    "docker": "docker login -u bot --password {} reg", "redis": "redis-cli -a {} ping", "7z": "7z a b.7z -p{} d/",
    "ldap": "ldapsearch -D cn=a -w {} -b dc=x", "flag": "tool --db-password {} --verbose",
    # issue 39: positions, stdin, secret stores, Windows and Oracle forms
    "ldap quoted": "ldapsearch -x -H ldaps://ldap.example.com -D 'cn=admin,dc=example,dc=com' -w '{}' -b dc=x",
    "sqlplus": "sqlplus scott/{}@orclpdb1", "rabbitmq": "rabbitmqctl add_user deploy {}",
    "redis auth": "redis-cli -h cache AUTH {}", "plink": "plink -ssh admin@host -pw {} uptime",
    "psexec": "psexec \\\\build01 -u ops -p {} cmd", "net user": "net user svc {} /add",
    "cmdkey": "cmdkey /add:fs /user:corp\\svc /pass:{}", "powershell": "ConvertTo-SecureString '{}' -AsPlainText",
    "stdin": "echo '{}' | docker login ghcr.io -u ci --password-stdin",
    "here-string": "podman login -u x --password-stdin <<< {}",
    "gh secret": "gh secret set API_KEY --body '{}'", "vault": "vault kv put secret/app password2={}",
    "ssm": "aws ssm put-parameter --name /k --type SecureString --value '{}'",
    "kubectl": "kubectl create secret generic app --from-literal=value={}",
    "doppler": "doppler secrets set STRIPE {}", "to a file": "printf '%s' '{}' > ~/.config/app/token",
    "mc": "mc alias set prod https://s3.example.com AKIA0000EXAMPLE0 {}", "bw": "bw unlock {}",
    "ssh-keygen": "ssh-keygen -t ed25519 -N '{}' -f key", "db2": "db2 connect to sample user db2inst1 using {}",
}
CONTEXTS = ["{}", "see {} here", '{{"value": "{}"}}', "`{}`", "line one\n{}\nline three", "({})."]


@pytest.mark.parametrize("kind", sorted(GENERATORS))
@pytest.mark.parametrize("context", CONTEXTS)
def test_generated_secret_disappears(kind, context):
    rng = random.Random(f"{kind}:{context}")
    for _ in range(25):
        text, secret = GENERATORS[kind](rng)
        out = redact(context.format(text))
        assert secret not in out
        assert f"[REDACTED:{kind.split('/')[0]}]" in out  # "kind/variant": another shape of one kind


@pytest.mark.parametrize("command", sorted(CLI_GENERATORS))
@pytest.mark.parametrize("context", CONTEXTS[:4])
def test_generated_password_on_a_command_line_disappears(command, context):
    rng = random.Random(f"{command}:{context}")
    for _ in range(25):
        secret = _random(rng, 12, ALNUM + "!#%^*")
        out = redact(context.format(CLI_GENERATORS[command].format(secret)))
        assert secret not in out and "[REDACTED:" in out


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(GENERATORS)), seed=st.integers(0, 2**32),
       before=st.text(max_size=60), after=st.text(max_size=60))
def test_secret_disappears_whatever_surrounds_it(kind, seed, before, after):
    text, secret = GENERATORS[kind](random.Random(seed))
    assert secret not in redact(f"{before} {text} {after}")


# --- invariants over arbitrary text ----------------------------------------------------------------------

FRAGMENTS = [
    "password", "PASSWORD", "token", "api_key", "SECRET_KEY", "=", ":", " = ", '"', "'", "\\", " ", "\n", "-",
    "_", "[REDACTED:token]", "[REDACTED:", "]", "ghp_", "eyJ", "sk-", "sk-ant-", "://", "user:", "@", "Bearer ",
    "Authorization: ", "AKIA", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "${X}",
    "hunter22", "None", "abc", "xoxb-", ".", "<", ">", "(", "İ",
    "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0", "ghp_0123456789abcdefghijABCDEFGHIJ0123456789",
]
mixed_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(mixed_text)
def test_redact_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


@settings(max_examples=300, deadline=None)
@given(mixed_text)
def test_spans_are_sorted_disjoint_and_in_bounds(text):
    spans = find_secrets(text)
    previous_end = 0
    for kind, start, end in spans:
        assert kind in KINDS
        assert previous_end <= start < end <= len(text)
        previous_end = end


@settings(max_examples=200, deadline=None)
@given(mixed_text)
def test_existing_markers_are_never_rewritten(text):
    markers = re.findall(r"\[REDACTED:[a-z0-9_]{1,40}\]", text)
    out = redact(text)
    for marker in set(markers):
        assert out.count(marker) >= markers.count(marker)


# --- speed and pathological input ------------------------------------------------------------------------

def _best_of(runs, func, arg):
    """The least CPU time (not wall-clock: a loaded machine must not fail this) of `runs` calls."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        func(arg)
        best = min(best, time.process_time() - started)
    return best


def test_one_megabyte_of_ordinary_text_is_linear_work():
    # The look-alike corpus fires most rules' cheap pre-checks, so this is a busy kind of "ordinary".
    lookalikes = "\n".join(case.values[0] for case in LOOKALIKES)
    prose = ("Recall ranks chunks by recency and tag overlap; the session hook writes a summary at the end. "
             "We fixed the flaky test by pinning the clock and removing the sleep.\n") * 20
    block = lookalikes + "\n" + prose
    text = (block * (1_000_000 // len(block) + 1))[:1_000_000]
    assert redact(text) == text
    assert _best_of(3, redact, text) < 0.5  # ~60 ms of CPU here; bench/README.md has the figures


ADVERSARIAL = {
    "a": "a" * 100_000,
    "password=": "password=" * 20_000,
    'password="': 'password="' * 20_000,
    "password: ": "password: " * 20_000,
    "key=": "key=" * 30_000,
    "spaces before =": "password" + " " * 100_000 + "=x",
    "eyJ": "eyJ" * 50_000,
    "eyJ dots": "eyJaaaaaaaa." * 20_000,
    "sk-": "sk-" * 50_000,
    "ghp_ run": "ghp_" + "a" * 200_000,
    "url": "https://" + "u" * 100_000 + ":" + "p" * 100_000,
    "://": "://a:" * 30_000,
    "BEGIN": "-----BEGIN RSA PRIVATE KEY-----" * 5_000,
    "Authorization": "Authorization: Bearer " * 10_000,
    "bearer": "bearer " * 30_000,
    "markers": "[REDACTED:token]" * 20_000,
    "no newline": "x" * 100_000 + " password: hunter22" * 2_000,
    # issue 13's families: command lines, flags, URLs, prose keys, prefixes
    "mysql -p": "mysql -p" * 20_000,
    "one command line": "sshpass " + "-p x " * 40_000,
    "flags": "--password " * 20_000,
    "dashes": " -" * 100_000,
    "set config": " config set token " * 10_000,
    "quotes": "curl '" + "a" * 100_000,
    "hooks path": "https://h.example/hooks/" + "a/" * 50_000,
    "query": "https://h.example/?" + "sig=a&" * 30_000,
    "user info": "https://" + "a" * 100_000 + "@",
    "prose key": "the api key is " * 20_000,
    "prose password": "password is " * 20_000,
    "glued run": "x-" * 100_000 + "ghp_",
    "twilio": "AC" * 100_000,
    "telegram": "123456789:AA" * 20_000,
    "azure": "abc8Q~" * 30_000,
    "discord": "MT" + "a" * 100_000,
    "long words": ("a" * 20 + " ") * 20_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input_stays_linear(name):
    # Catastrophic backtracking on these inputs takes tens of seconds; linear work takes milliseconds.
    assert _best_of(1, redact, ADVERSARIAL[name]) < 1.0


@pytest.mark.parametrize("name, allowed", [
    ("redact", {"re", "brain.safety", "brain.safety.shapes", "brain.safety.token_shape"}),
    ("shapes", {"re", "brain.safety"}), ("commands", {"re", "brain.safety", "brain.safety.shapes",
                                                       "brain.safety.token_shape"}),
    ("formats", {"binascii", "re", "brain.safety", "brain.safety.shapes", "brain.safety.token_shape",
                 "brain.safety.bip39"}),
    ("token_shape", {"binascii", "math", "re", "brain.safety", "brain.safety.shapes"}),
    ("triggers", {"brain.safety.families"}), ("families", set()), ("bip39", set())])
def test_the_redactor_imports_only_re(name, allowed):
    # Hooks load it; brain/safety sits under every other layer, so it may import nothing else of the library.
    path = Path(redact_module.__file__).with_name(f"{name}.py")
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or ".")
    assert imported == allowed


def test_the_memo_holds_a_whole_bulk_batch_and_stays_bounded(monkeypatch):
    """A chunk is redacted when built and again on its way to disk; for a 1,000-chunk bulk batch (~8,000 strings)
    the second pass must find every string in the memo (a 2,048-entry memo emptied itself first), and the memo
    must stay bounded by characters whatever goes through it."""
    calls = []
    real = redact_module._redact_once
    monkeypatch.setattr(redact_module, "_redact_once", lambda text: calls.append(text) or real(text))
    monkeypatch.setattr(redact_module, "_SEEN", {})
    monkeypatch.setattr(redact_module, "_seen_chars", 0)
    batch = [f"memory {i}: the worker on host-{i} retries {i % 7} times, then gives up and tells the person"
             for i in range(8000)] + ["id", "kind"]  # (longer than the triggers-only check's 64 characters)
    first = [redact(text) for text in batch]
    assert calls and all(text in redact_module._SEEN for text in batch)
    calls.clear()
    assert [redact(text) for text in batch] == first and calls == []
    for i in range(3000):  # ~6 million characters more
        redact(f"{i:06d}" + "x" * 2000)
    assert redact_module._seen_chars <= redact_module._SEEN_MAX_CHARS + 2 * 2006


# --- tokens alone (issue 39): judged by their shape ---------------------------------------------------------

ALPHABETS = {"base64": ALNUM + "+/", "base64url": ALNUM + "-_", "base62": ALNUM,
             "base58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
             "base36 lower": string.ascii_lowercase + string.digits, "base32": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"}


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("length", [24, 32, 44, 64])
def test_a_random_token_alone_is_redacted(alphabet, length):
    from brain.safety.token_shape import alone_token_kind

    rng = random.Random(f"{alphabet}:{length}")
    tokens = [_random(rng, length, ALPHABETS[alphabet]) for _ in range(200)]
    missed = [t for t in tokens if alone_token_kind(t) is None]
    assert len(missed) <= 4, missed[:5]  # (a few draws come out word-like or repetitive by chance)
    assert all(redact(t) == "[REDACTED:token]" for t in tokens if t not in missed)


LONE_LOOKALIKES = [
    "3f786850e387550fdab836ed7e6dc881de23001b", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "123e4567-e89b-12d3-a456-426614174000", "{123E4567-E89B-12D3-A456-426614174000}",
    "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "v2.14.0-rc.3+build.7", "1.2.3", "getUserProfileById", "validateAccessTokenScopes", "release_2026_q1_hotfix",
    "TestCreateSecretWithRotationPolicy", "project-af8b48ecbb", "chunk-2026-02-10-a1b2c3d4", "2026-11-20T10:00:00Z",
    "TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu", "aGVsbG8gd29ybGQgaG93IGFyZSB5b3U=", "YOUR_API_KEY_HERE",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "app.3f9a8b7c6d5e4f3a.js", "0_0001_2345af.md", "user@example.com",
    "/home/dev/.claude/projects/-home-dev-app/7f3c9e2a-41d8-4b6e-9a0f-2c5d8e1b3a47.jsonl",
    "https://example.com/a/b?c=d", "feature/JIRA-1234-token-refresh", "AKIAIOSFODNN7EXAMPLE",
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
    "AAAAC3NzaC1lZDI1NTE5AAAAIGxvY2FsaG9zdCBrZXkgZm9yIHRlc3Rz", "pk_live_vByd1tCj0l582gvOywc4WIng",
    # ids a program makes from a time (gardening's run ids were redacted one time in five: undo lost its run)
    "garden-20261128T094512Z-cba6", "garden-20261128T094512Z-9f1e", "backup_2026-11-28T09:45Z_3f",
    # a substitution quoted for sed (capture reads the change it makes: a redacted one was a change lost)
    "s/connection_limit=5/connection_limit=15/", "s|ELIXIR_VERSION=1.16.3|ELIXIR_VERSION=1.18.4|g",
    # names made of words and a small number (sync's own cache header was redacted, so every sync read every file)
    "rlm-mem-sync-files/2", "docs-site-pages/12", "my-tool-config/3",
    # a training run's name of marks and words (a session named so lost its name in every memory)
    "c4-fp16-len256-seeds", "gpu-a100-80gb-spot", "deberta-v3-base-len128",
    # an image registry: a host and a path (a prod values file's registry was dropped as a secret, its change lost)
    "482913306715.dkr.ecr.eu-central-1.amazonaws.com/shrike", "123456789012.dkr.ecr.us-east-1.amazonaws.com/api/web",
    # an image's tag of words and a date (a Dockerfile's base image change was lost)
    "bookworm-20240311-slim", "bullseye-20240130-slim",
    # a project file's path (a .NET project's settings were never read: its path was redacted)
    "src/Avocet.Api/Avocet.Api.csproj", "src/App.Web/App.Web.fsproj",
    # a settings key kept alone on its turn (the key was redacted, so a change back of it replaced nothing)
    "Refunds.WindowDays", "Payments.ReturnUrl", "Serilog.WriteTo[0].Name", "org.h2.jdbc.JdbcSQLSyntaxErrorException",
    "GameSettings.DesktopTargetFps", "env:esp32-s3-devkitc-1.board_build.partitions",
]


@pytest.mark.parametrize("line", ["Token expired", "token port", "Secret sauce", "Password reset"])
def test_a_secret_word_then_a_plain_word_is_prose_not_a_setting(line):
    assert redact(line) == line  # (`requirepass foobared`, a configuration's own name, still is one)


@pytest.mark.parametrize("token", LONE_LOOKALIKES)
def test_a_look_alike_alone_is_kept(token):
    assert redact(token) == token


def test_the_alone_corpus_is_redacted_whole():
    tokens = [line.values[0].split("\t", 1)[1] for line in _fixture_lines("alone.txt")]
    assert len(tokens) >= 150
    kept = [t for t in tokens if t in redact(t) or "[REDACTED:" not in redact(t)]
    assert not kept, kept[:5]


def test_every_token_of_the_shared_transcripts_alone_is_kept():
    """Tool ids, message ids, hashes, paths, session ids... of real transcripts: none is a secret by its shape."""
    files = sorted(TRANSCRIPTS.glob("*.jsonl"))
    if not files:
        pytest.skip("shared transcripts not available")
    from brain.safety.token_shape import alone_token_kind

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for k, v in value.items():
                yield k
                yield from strings(v)
        elif isinstance(value, list):
            for v in value:
                yield from strings(v)

    texts = [s for path in files for line in path.read_text().splitlines() if line.strip()
             for s in strings(json.loads(line))]
    tokens = {t.strip("\"',:;()[]{}") for text in texts for t in text.split()}
    flagged = sorted(t for t in tokens if len(t) >= 8 and alone_token_kind(t))
    assert not flagged, flagged[:10]


def test_a_recovery_phrase_needs_the_word_list_and_twelve_words():
    from brain.safety.bip39 import WORDS

    words = sorted(WORDS)
    rng = random.Random(12)
    phrase = " ".join(rng.choice(words) for _ in range(12))
    assert redact(f"seed: {phrase}") == "seed: [REDACTED:private_key]"
    assert redact(" ".join(phrase.split()[:11])) == " ".join(phrase.split()[:11])  # eleven words: not a phrase
    prose = "refactor payment service retry logic using exponential backoff jitter timeout config update"
    assert redact(prose) == prose
    assert redact("word " * 30) == "word " * 30  # one word repeated is no phrase


def test_a_secret_cut_by_a_preview_is_still_redacted():
    """A PEM block whose BEGIN line was cut off, and a base64 key's tail: what a clipped preview keeps."""
    body = "\n".join(_random(random.Random(1), 64, ALNUM + "+/") for _ in range(3))
    assert redact(f"…\n{body}\n-----END RSA PRIVATE KEY-----") == "…\n[REDACTED:private_key]"


# --- the held-out corpus of issue 39 (tests/fixtures/secrets-heldout/) -------------------------------------------

HELDOUT = Path(__file__).parent / "fixtures" / "secrets-heldout"
# What stays out of reach, by design (bench/README.md): words said as a passphrase without quotes, a wallet key in
# hex with no word naming it (a transaction hash's shape); alone, hex of 40 and 64 digits and a UUID (a commit's, a
# lockfile hash's and an id's shapes).
HELDOUT_CEILING = {"crypto/keystore-password", "crypto/eth-private-key-hex-0x", "generic/hex-40", "generic/hex-64",
                   "generic/uuid-v4-api-key"}


def _heldout(name):
    from harness.trust_corpus import cases, alone_cases, lookalikes

    return {"positives": cases(HELDOUT), "alone": alone_cases(HELDOUT), "lookalikes": lookalikes(HELDOUT)}[name]


def test_every_held_out_secret_is_redacted_but_the_known_ceiling():
    from harness.trust_corpus import found, public_text

    missed = [kind for kind, text, secrets in _heldout("positives") + _heldout("alone")
              if any(found(s, redact(text).lower(), public_text(text, secrets)) for s in secrets)]
    assert set(missed) <= HELDOUT_CEILING, sorted(set(missed) - HELDOUT_CEILING)
    assert len(missed) <= 5


def test_every_held_out_look_alike_is_kept():
    changed = [text for text in _heldout("lookalikes") if redact(text) != text]
    assert not changed, changed[:5]


# --- redacting joined parts (capture joins a reply's blocks, and a turn with its [tools] line) ------------------

_TOOL_LINES = ("[tools] Bash: pytest -q (12 passed)", "[tools] Edit: config/app.yaml; Bash: git push origin main",
               "[tools] Bash: mysql -u root -pS3cretPassw0rd app (failed)")


def _joined_cases():
    from harness.trust_corpus import FIXTURES, cases

    return [case for folder in (FIXTURES, HELDOUT) for case in cases(folder)]


def test_a_secret_split_across_joined_parts_is_still_redacted():
    """A multi-line secret (a key block, a numbered recovery phrase) cut where two parts meet: the window read
    where they meet, or each part alone, redacts it whenever redacting the whole text would."""
    from harness.trust_corpus import found, public_text

    leaks, splits = [], 0
    for kind, text, secrets in _joined_cases():
        at = text.find("\n")
        while at >= 0:
            splits += 1
            for separator in ("\n", "\n\n"):
                whole = text[:at] + separator + text[at + 1:]
                public = public_text(whole, secrets)
                if any(found(s, redact(whole).lower(), public) for s in secrets):
                    continue  # (missed whole as well: the corpus's ceiling, not the join's)
                out = redact_module.redact_joined([text[:at], text[at + 1:]], separator).lower()
                if any(found(s, out, public) for s in secrets):
                    leaks.append((kind, at, separator))
            at = text.find("\n", at + 1)
    assert splits > 100 and not leaks, leaks[:5]


def test_no_secret_runs_into_a_tools_line():
    """redact_with_line trusts that nothing continues from a text into capture's own [tools] line: whatever
    redacting the whole would hide, it hides, for every secret of both corpora, and the line itself is kept."""
    from harness.trust_corpus import found, public_text

    for kind, text, secrets in _joined_cases():
        for line in _TOOL_LINES:
            out = redact_module.redact_with_line(text, line)
            public = public_text(text + "\n" + line, secrets)
            whole = redact(text + "\n" + line).lower()
            assert [s for s in secrets if found(s, out.lower(), public)] \
                == [s for s in secrets if found(s, whole, public)], (kind, line)
            assert out.endswith("\n" + redact(line))


def test_joined_parts_without_secrets_are_remembered_as_redacted():
    parts = ["The deploy script reads the region from the environment.", "Then it pushes the image."]
    joined = redact_module.redact_joined(parts, "\n\n")
    assert joined == "\n\n".join(parts) and redact_module._SEEN.get(joined) is joined
