"""Secrets on command lines: after a password flag, in a password position, handed to a secret store, piped into a
login, or quoted as an argument.

A command line says where its secret is by its grammar, not by the secret's shape:
- a flag (`mysql -pPW`, `sshpass -p PW`, `plink -pw PW`, `--password PW`, `-storepass PW`, `/p:PW`), or a flag whose
  value is `user<sep>password` (`curl -u user:pw`, `smbclient -U user%pw`);
- a position (`sqlplus scott/tiger@db`, `rabbitmqctl add_user NAME PW`, `net user NAME PW`, `redis-cli AUTH PW`,
  `wandb login KEY`, `ngrok config add-authtoken TOKEN`, `mc alias set NAME URL ACCESS SECRET`);
- a secret store (`vault kv put PATH k=v`, `gh secret set NAME --body V`, `aws secretsmanager create-secret
  --secret-string V`, `kubectl create secret generic N --from-literal=k=v`, `doppler secrets set K V`): every value;
- standard input (`echo PW | docker login --password-stdin`, `printf '%s' T | gh secret set N`, `<<< "PW"`) and a
  value written to a file named for a secret (`echo T > ~/.config/app/token`);
- a quoted argument of any command whose value is a machine-made token (`printf '%s' 'TOKEN'`), judged by
  brain/safety/token_shape.py, as a field holding a token alone.
Commands are found anywhere on a line ("ran mysql -u root -pPW", "Bash: …"), and inside a quoted command
(`sh -c "…"`). Every word pattern is bounded, and a line is read once (its first 4,096 characters).
"""
import re

from brain.safety import triggers
from brain.safety.shapes import GENERIC_PREFIX_WORDS, is_placeholder, looks_like_path
from brain.safety.token_shape import alone_token_kind, looks_machine_made

# command -> how it takes a secret on its command line:
#   glued: flags whose remainder is the password (`mysql -pPW`); next: flags whose next word is the password;
#   userpass: flags whose next word is user<sep>password; passarg: openssl's `-pass pass:PW`;
#   needs: a subcommand (or one of several) that must come first; positional: after it, the index of the secret
#   among the words that are neither flags nor name=value; slash: `user/password@db` words (Oracle);
#   after: words whose next word is the secret (`using PW`, `requirepass PW`); auth_last: after AUTH, the last word;
#   kind: what the positional secret is (password unless said).
_MYSQL = {"glued": ("-p", "--password=")}
_LOGIN = {"next": ("-p", "--password"), "needs": "login"}
_ORACLE = {"slash": True}
_CLI_COMMANDS = {
    # databases
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlbinlog",
                     "mysqlsh", "mysqlpump", "mariadb", "mariadb-dump", "mariadb-admin", "mycli"), _MYSQL),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat",
                     "mongotop", "mongofiles"), {"next": ("-p",)}),
    "redis-cli": {"next": ("-a", "--pass"), "auth_last": True, "after": ("requirepass", "masterauth")},
    **dict.fromkeys(("sqlcmd", "bcp", "osql", "isql"), {"next": ("-P",)}),
    **dict.fromkeys(("sqlplus", "sqlldr", "expdp", "impdp", "exp", "imp", "rman"), _ORACLE),
    "cqlsh": {"next": ("-p", "--password")},
    "vsql": {"next": ("-w",)},
    "db2": {"after": ("using",)},
    **dict.fromkeys(("influx", "clickhouse-client", "clickhouse"), {"next": ("--password", "-password")}),
    # queues and brokers
    "rabbitmqctl": {"needs": ("add_user", "change_password", "authenticate_user"), "positional": 1},
    "rabbitmqadmin": {"next": ("-p", "--password")},
    **dict.fromkeys(("mosquitto_pub", "mosquitto_sub", "mosquitto_rr", "ipmitool"), {"next": ("-P",)}),
    "mosquitto_passwd": {"htpasswd": True},
    # remote shells and file shares
    "sshpass": {"glued": ("-p",), "next": ("-p",)},
    **dict.fromkeys(("plink", "pscp", "psftp", "putty"), {"next": ("-pw",)}),
    **dict.fromkeys(("psexec", "psexec64"), {"next": ("-p",)}),
    "winrs": {"glued": ("-p:", "-password:")},
    "cmdkey": {"glued": ("/pass:",)},
    "schtasks": {"next": ("/rp", "/RP")},
    "net": {"needs": ("user", "use"), "positional": 1, "windows": True},
    "convertto-securestring": {"positional": 0, "next": ("-String", "-string")},
    **dict.fromkeys(("xfreerdp", "wlfreerdp", "sdl-freerdp", "xfreerdp3"), {"glued": ("/p:",)}),
    "rdesktop": {"next": ("-p",)},
    **dict.fromkeys(("smbclient", "rpcclient", "smbmap", "smbget"), {"userpass": ("-U", "--user"), "sep": "%"}),
    "lftp": {"userpass": ("-u",), "sep": ","},
    **dict.fromkeys(("curl", "wget2"), {"userpass": ("-u", "--user", "-U", "--proxy-user"), "sep": ":"}),
    **dict.fromkeys(("http", "https", "xh"), {"userpass": ("-a", "--auth"), "sep": ":"}),
    **dict.fromkeys(("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldapcompare",
                     "ldapmodrdn", "ldapexop"), {"next": ("-w",)}),
    "ldappasswd": {"next": ("-w", "-s", "-a")},
    **dict.fromkeys(("snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpgetnext", "snmptrap"),
                    {"next": ("-A", "-X", "-c")}),  # (-c: the v1/v2c community)
    # containers, registries, clouds
    **dict.fromkeys(("docker", "podman", "nerdctl", "buildah", "oras", "helm", "crane", "finch"), _LOGIN),
    "oc": {"next": ("-p", "--password", "--token"), "needs": "login"},
    "argocd": {"next": ("--password",), "needs": "login"},
    "az": {"next": ("-p", "--password"), "needs": "login"},
    "skopeo": {"userpass": ("--creds", "--src-creds", "--dest-creds"), "sep": ":"},
    "doctl": {"next": ("-t", "--access-token")},
    "dotnet": {"next": ("-p", "--password", "-k", "--api-key")},
    "nuget": {"needs": "setapikey", "positional": 0, "next": ("-ApiKey", "-apikey"), "kind": "api_key"},
    "choco": {"next": ("-k", "--key", "--api-key", "--apikey"), "kind": "api_key"},
    "twine": {"next": ("-p", "--password")},
    # logins that take a token as their argument
    "vault": {"needs": "login", "positional": 0},
    "wandb": {"needs": "login", "positional": 0, "kind": "api_key"},
    "cargo": {"needs": "login", "positional": 0, "kind": "token"},
    "ngrok": {"needs": ("authtoken", "add-authtoken", "add-api-key"), "positional": 0, "kind": "token"},
    "cloudflared": {"needs": "install", "positional": 0, "kind": "token"},
    "snyk": {"needs": "auth", "positional": 0, "kind": "token"},
    "consul": {"needs": "set-agent-token", "positional": 1, "kind": "token"},
    "bw": {"needs": ("unlock", "login"), "positional": {"unlock": 0, "login": 1}},  # bw login EMAIL PW
    "mc": {"needs": ("set", "add"), "positional": 3, "kind": "secret"},  # mc alias set NAME URL ACCESS SECRET
    # archives, keys, certificates
    **dict.fromkeys(("7z", "7za", "7zr", "unrar", "rar"), {"glued": ("-p", "-hp")}),
    **dict.fromkeys(("zip", "unzip", "zipcloak"), {"next": ("-P",)}),
    "openssl": {"passarg": ("-passin", "-passout", "-pass", "-passarg"), "next": ("-k",)},
    "ssh-keygen": {"next": ("-N", "-P")},
    "security": {"next": ("-w",)},
    "htpasswd": {"htpasswd": True},
    "gh": {"next": ("-b", "--body"), "needs": "secret"},
    "b2": {"needs": ("authorize-account", "authorize"), "positional": 1, "kind": "secret"},  # KEY_ID KEY
}
# Commands that write to a secret store or set an app's secrets (see _STORE_WORDS).
_STORE_CLIS = ("aws", "gcloud", "kubectl", "doppler", "flyctl", "heroku", "netlify", "wrangler", "railway", "vercel",
               "supabase", "firebase", "glab", "op", "secret-tool", "keyring", "fly")
_CLI_NAMES = tuple(sorted({name for name in _CLI_COMMANDS if len(name) >= 4} | set(_STORE_CLIS)
                          | {"7z", "az", "rar", "zip", "bcp", "gh", "config", "oc", "bw", "mc", "net", "db2", "http",
                             "b2"}))
# A secret store: in a command holding one of these words, every value given is a secret.
_STORE_WORDS = frozenset(("secret", "secrets", "kv", "keyvault", "secretsmanager", "secret-tool",
                          "add-generic-password", "add-internet-password", "ssm"))
_STORE_VERBS = frozenset(("set", "put", "add", "create", "write", "patch", "insert", "store", "put-secret-value",
                          "create-secret", "update-secret", "put-parameter"))
_STORE_VALUE_FLAGS = frozenset(("--value", "--secret-string", "--secret-binary", "--body", "-b", "-value",
                                "--string"))
_STORE_TYPES = frozenset(("generic", "tls", "docker-registry", "opaque"))  # kubectl create secret TYPE NAME
# Standard input that becomes a secret: the command it is piped into holds one of these.
_STDIN_CONSUMERS = frozenset(("--password-stdin", "--with-token", "--stdin", "chpasswd", "login", "secret",
                              "secrets", "--data-file=-", "kinit", "passwd", "insert", "keyring", "secret-tool",
                              "unlock", "--password-file=-", "add-authtoken", "-"))
_ECHOES = frozenset(("echo", "printf", "print", "write-output"))
# Commands that only filter what they read: what is piped into them is not handed over as a credential.
_FILTERS = frozenset(("grep", "egrep", "rg", "sed", "awk", "tr", "wc", "head", "tail", "sort", "uniq", "cut", "jq",
                      "xargs", "less", "more", "cat", "base64", "sha256sum", "md5sum", "xxd", "od"))
_SECRET_FILE_WORDS = ("token", "secret", "key", "pass", "cred", "auth", ".pem", "netrc", "pgpass", "npmrc", "pypirc",
                      ".env", "vault")
_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,127}=")
assert all(any(t in name for t in triggers.CLI) for name in _CLI_NAMES), "a command is missing a trigger"
_SHELL_WORD = re.compile(r"\"[^\"\n]{0,512}\"|'[^'\n]{0,512}'|<<<|[|;&]+|[^\s|;&\"']+(?:\"[^\"\n]{0,512}\""
                         r"|'[^'\n]{0,512}')?")
_SECRET_NAME_WORDS = ("secret", "token", "password", "passwd", "api_key", "apikey", "api-key", "authtoken",
                      "access_key", "private_key")
_LINE_CAP = 4096  # characters of one command line examined


def find_cli_secrets(text, lower):
    # A secret on a command line follows a flag (" -p"), "set"/"config", a login, a pipe...: only lines holding one
    # of those markers and a command name are read word by word.
    lines = set()
    for marker in triggers.CLI_MARKERS:
        at = lower.find(marker)
        while at >= 0:
            start = lower.rfind("\n", 0, at) + 1
            lines.add(start)
            end = lower.find("\n", at)
            at = -1 if end < 0 else lower.find(marker, end)
    for name in triggers.CLI_POSITIONAL:  # (their secret follows no flag: `sqlplus scott/tiger@db`)
        at = lower.find(name)
        while at >= 0:
            lines.add(lower.rfind("\n", 0, at) + 1)
            end = lower.find("\n", at)
            at = -1 if end < 0 else lower.find(name, end)
    names = [name for name in _CLI_NAMES + tuple(_ECHOES) if name in lower] if lines else ()
    for start in sorted(lines) if names else ():
        end = lower.find("\n", start)
        end = min(len(text) if end < 0 else end, start + _LINE_CAP)
        line = lower[start:end]
        if any(name in line for name in names):
            yield from _command_line(text, start, end)


def _unquoted(word, start):
    """(value, start, end) of a shell word without its quotes (also `--flag='value'`, `k="v"`)."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return word[1:-1], start + 1, start + len(word) - 1
    return word, start, start + len(word)


def _words(text, start, end):
    """[(raw word, value, value start, value end)] of a line, shell-style."""
    out = []
    for m in _SHELL_WORD.finditer(text, start, end):
        out.append((m.group(), *_unquoted(m.group(), m.start())))
    return out


def _segments(words):
    """The line's commands: words split at |, ||, &&, ; and &, each with the separator that ended it."""
    segments, current = [], []
    for word in words:
        if word[0][0] in "|;&":
            segments.append((current, word[0]))
            current = []
        else:
            current.append(word)
    segments.append((current, ""))
    return segments


def _command_line(text, start, end, nested=False):
    words = _words(text, start, end)
    segments = _segments(words)
    for i, (segment, separator) in enumerate(segments):
        if not nested:
            for raw, value, v_start, v_end in segment:
                if raw[0] in "\"'" and " " in value:  # sh -c "mysql -p…", {"cmd": "curl -u …"}
                    yield from _command_line(text, v_start, v_end, nested=True)
        yield from _segment_secrets(segment)
        piped_into = segments[i + 1][0] if separator == "|" and i + 1 < len(segments) else None
        yield from _stdin_secrets(segment, piped_into)


def _value_ok(value, minimum=3):
    return bool(value) and len(value) >= minimum and not value.startswith("-") and not is_placeholder(value)


def _base(value):
    return value.lstrip("\"'`($").rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower().removesuffix(".exe")


def _segment_secrets(segment):
    spec, ready, expect, positional, config_value, passed, subcommand = None, False, None, [], False, 0, None
    store = any(_base(v) in _STORE_WORDS for _, v, _, _ in segment)
    verb_seen, store_names = False, []
    for index, (raw, value, v_start, v_end) in enumerate(segment):
        if expect is not None:
            kind, sep = expect
            expect = None
            yield from _expected(kind, sep, value, v_start, v_end)
            continue
        if config_value:
            config_value = False
            if value and not is_placeholder(value):
                name = positional[-1]
                yield "password" if "pass" in name else "secret" if "secret" in name else "token", v_start, v_end
            continue
        if store:
            found = _store_value(segment, index, value, v_start, v_end, verb_seen, store_names)
            if found == "verb":
                verb_seen = True
                continue
            if found:
                yield found
                continue
        base = _base(value)
        if base in _CLI_COMMANDS:
            spec, positional, passed = _CLI_COMMANDS[base], [], 0
            ready = "needs" not in spec
            continue
        if spec is not None and not ready:
            needs = spec["needs"]
            ready = value in needs if isinstance(needs, tuple) else value == needs
            subcommand = value
            continue
        if base in ("set", "config") or (positional and positional[-1] in ("set", "config")):
            if positional and positional[-1] in ("set", "config") and any(w in base for w in _SECRET_NAME_WORDS):
                config_value = True
            positional.append(base)
            continue
        if spec is None:
            continue
        if spec.get("slash") and "/" in value and not value.startswith(("/", "@")):
            user, _, rest = value.partition("/")
            password = rest.split("@", 1)[0]
            if user and _value_ok(password) and not looks_like_path(value):
                yield "password", v_start + len(user) + 1, v_start + len(user) + 1 + len(password)
            continue
        found = _flag_secret(spec, positional, value, v_start, v_end)
        if found == "expect-next":
            expect = ("next", None)
        elif found == "expect-userpass":
            expect = ("userpass", spec["sep"])
        elif found == "expect-passarg":
            expect = ("passarg", None)
        elif found:
            yield found
        elif value.lower() in spec.get("after", ()):
            expect = ("next", None)
        elif spec.get("auth_last") and value.lower() == "auth" and index + 1 < len(segment):
            for _, word, w_start, w_end in segment[index + 1:index + 3]:  # AUTH [user] password
                if word.startswith("-"):
                    break
                if _value_ok(word):
                    yield "password", w_start, w_end
            return
        elif "positional" in spec and _is_positional(spec, value):
            want = spec["positional"]
            if isinstance(want, dict):
                want = want.get(subcommand, -1)
            if passed == want and _value_ok(value):
                yield spec.get("kind", "password"), v_start, v_end
            passed += 1
        positional.append(value)


def _is_positional(spec, value) -> bool:
    """A word that is neither a flag nor name=value (nor, on Windows, a /switch, a drive or a share)."""
    if value.startswith("-") or _ASSIGN_RE.match(value):
        return False
    return not (spec.get("windows") and (value.startswith(("/", "\\")) or value.endswith(":")))


def _expected(kind, sep, value, v_start, v_end):
    if sep:
        _, found, value = value.partition(sep)
        if not found:
            return
        v_start = v_end - len(value)
    if kind == "passarg":
        scheme, found, value = value.partition(":")
        if not found or scheme != "pass":
            return
        v_start = v_end - len(value)
    if _value_ok(value):
        yield "password", v_start, v_end


def _flag_secret(spec, words_before, value, v_start, v_end):
    for flag in spec.get("glued", ()):
        if value.startswith(flag) and len(value) > len(flag) and not (flag == "-p" and value[2:3] == "-"):
            secret, s_start, s_end = _unquoted(value[len(flag):], v_start + len(flag))  # -p'PW'
            return ("password", s_start, s_end) if _value_ok(secret) else None
    if value in spec.get("next", ()):
        return "expect-next"
    if value in spec.get("userpass", ()):
        return "expect-userpass"
    if value in spec.get("passarg", ()):
        return "expect-passarg"
    if spec.get("htpasswd") and _htpasswd_password(words_before, value):
        return "password", v_start, v_end
    return None


def _htpasswd_password(words_before, value) -> bool:
    """htpasswd -b[c] FILE USER PASSWORD (or -nb USER PASSWORD): whether `value` is that last word."""
    if value.startswith("-") or is_placeholder(value):
        return False
    flags = "".join(w[1:] for w in words_before if w.startswith("-"))
    words = [w for w in words_before if not w.startswith("-")]
    return "b" in flags and len(words) == (1 if "n" in flags else 2)


def _store_value(segment, index, value, v_start, v_end, verb_seen, names):
    """In a secret store's command: "verb" for its verb (set, put, create…), a span for a value, else None."""
    lower = value.lower()
    if lower in _STORE_VERBS and not verb_seen:
        return "verb"
    before = segment[index - 1][1] if index else ""
    if before in _STORE_VALUE_FLAGS and _value_ok(value, 1):
        return "secret", v_start, v_end
    if value.startswith("-") and "=" in value:  # --from-literal=name=value, --secret-string=value
        flag, _, rest = value.partition("=")
        if flag == "--from-literal":
            rest_start = v_start + len(flag) + 1
            name, eq, secret = rest.partition("=")
            if eq and _value_ok(secret, 1):
                start = rest_start + len(name) + 1
                return "secret", start, start + len(secret)
        elif flag in _STORE_VALUE_FLAGS and _value_ok(rest, 1):
            return "secret", v_end - len(rest), v_end
        return None
    if not verb_seen or value.startswith("-") or lower in _STORE_WORDS or lower in _STORE_TYPES:
        return None
    if before.startswith("-") and "=" not in before:  # a flag's own value (--name N, --vault-name V)
        return None
    m = _ASSIGN_RE.match(value)
    if m:  # vault kv put PATH key=value, doppler secrets set KEY=VALUE
        secret, start = value[m.end():], v_start + m.end()
        secret, start, end = _unquoted(secret, start)
        if secret.startswith("@"):  # vault's key=@file
            return None
        return ("secret", start, end) if _value_ok(secret, 1) else None
    names.append(value)
    # `doppler secrets set NAME VALUE`: the word after the name (a path or a file is not a value)
    if len(names) == 2 and _value_ok(value, 4) and not looks_like_path(value) and "." not in value[-6:]:
        return "secret", v_start, v_end
    return None


def _stdin_secrets(segment, piped_into):
    """A value an echo or printf hands to a login or secret store through a pipe, a here-string, or a file named
    for a secret; and a here-string given to such a command."""
    consumer = bool(piped_into) and _base(piped_into[0][1]) not in _FILTERS and _consumes_secret(piped_into)
    for i, (raw, value, v_start, v_end) in enumerate(segment):
        if raw == "<<<" and i + 1 < len(segment) and _consumes_secret(segment):
            _, secret, s_start, s_end = segment[i + 1]
            if _value_ok(secret):
                yield "password", s_start, s_end
    first = next((i for i, word in enumerate(segment) if _base(word[1]) in _ECHOES), None)
    if first is None:
        return
    args, target, printf = [], None, _base(segment[first][1]) == "printf"
    for i, (raw, value, v_start, v_end) in enumerate(segment[first + 1:], first + 1):
        if value in (">", ">>") and i + 1 < len(segment):
            target = segment[i + 1][1]
            break
        if value.startswith((">", ">>")) and len(value.lstrip(">")) > 0:
            target = value.lstrip(">")
            break
        if value.startswith("-") and not args:  # echo -n, printf -v
            continue
        if printf and not args and "%" in value:  # printf's format ('%s\n'): what follows it is the value
            printf = False
            continue
        args.append((value, v_start, v_end))
    if piped_into and _base(piped_into[0][1]) == "tee" and len(piped_into) > 1:
        target = piped_into[-1][1]
    named = target is not None and any(w in target.lower() for w in _SECRET_FILE_WORDS)
    for value, v_start, v_end in args:
        if consumer or named:
            if _value_ok(value):
                yield "password" if consumer else "secret", v_start, v_end
        elif target is not None and alone_token_kind(value):
            yield "token", v_start, v_end


def _consumes_secret(segment) -> bool:
    words = {v.lower() for _, v, _, _ in segment}
    return bool(words & _STDIN_CONSUMERS) and not (words & {"-"} and not words & (_STORE_WORDS | {"login", "vault"}))


# --- long flags that name a secret ---------------------------------------------------------------------------

# Long (and a few single-dash) flags that name a secret, in any command: `--password PW`, `--api-key=K`. Found from
# the keyword (rarer than "-") and checked backwards: the word must be a flag whose last part is the keyword.
_FLAG_KEYWORD = re.compile(  # (starts at "-" or "_": the engine skips straight to those characters)
    r"[-_](?P<name>pass(?:word|wd|phrase)?|pwd|storepass|keypass|secret|token|api-?key|apikey|webhook-url|authkey"
    r"|auth-key|key|bearer|credentials?|psk)"
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
        quoted = v.group()[0] in "\"'"
        if not value or (value.startswith("-") and not quoted) or is_placeholder(value) or looks_like_path(value):
            continue  # (a quoted value may start with "-": --password '-7?#Ccq4…')
        if "pass" in name or name in ("pwd", "psk"):
            if len(value) >= 3:
                yield "password", start, end
        elif name == "key":  # `--key` also names a file, a field or a sort key: only a made token counts
            if looks_machine_made(value):
                yield "api_key", start, end
        elif len(value) >= 8 and (looks_machine_made(value, 8) or any(c.isdigit() for c in value)
                                  or alone_token_kind(value)):
            kind = "webhook" if name == "webhook-url" else "api_key" if "key" in name else "token"
            yield kind, start, end


# --- quoted arguments: a token alone -------------------------------------------------------------------------

_QUOTED = re.compile(r"(['\"`])([^\s'\"`]{8,4096})\1")  # (8: a typed password's least)
# What a command line starts with: a prompt, sudo or env, NAME=value words, then a command name or a path to one.
_COMMAND_START = re.compile(r"[ \t]{0,16}(?:\$[ \t]{1,4}|>[ \t]{1,4}|sudo[ \t]{1,4}|env[ \t]{1,4})?"
                            r"(?:[A-Za-z_][A-Za-z0-9_]{0,63}=[^\s=]{0,256}[ \t]{1,4}){0,8}"
                            r"(?:[a-z][a-z0-9._+-]{0,40}|\.{0,2}/[\w./-]{1,200})(?:[ \t]|$)")
# A command quoted inside prose or an error ("deploy failed: printf '%s' 'TOKEN' | pbcopy").
_EMBEDDED_COMMAND = re.compile(r"(?<![\w-])(?:printf|echo|curl|wget|http|export)[ \t]")
_SEGMENT_BREAKS = ("|", ";", "&&", "$(", "`", "Bash: ", "$ ")
_ID_WORDS = GENERIC_PREFIX_WORDS | frozenset(("live", "prod", "secret", "private", "priv", "pwd", "key"))


def find_quoted_tokens(text, lower):
    """A quoted argument of a command whose value is a machine-made token (`printf '%s' 'TOKEN'`). In prose and
    JSON a quoted id is what it looks like; in a command's arguments a random token is a credential being passed."""
    for m in _QUOTED.finditer(text):
        if m.group(2).startswith("[REDACTED:"):
            continue
        line_start = text.rfind("\n", max(0, m.start() - _LINE_CAP), m.start()) + 1
        line_start = max(line_start, m.start() - _LINE_CAP)  # (a line is read up to _LINE_CAP characters back)
        start = line_start
        for mark in _SEGMENT_BREAKS:
            at = text.rfind(mark, line_start, m.start())
            if at >= 0:
                start = max(start, at + len(mark))
        if not _COMMAND_START.match(text, start, m.start()) and not _EMBEDDED_COMMAND.search(text, start, m.start()):
            continue
        value, start = m.group(2), m.start(2)
        name, eq, rest = value.partition("=")
        if eq and rest.strip("=") and _ASSIGN_RE.match(value):  # -d 'key=VALUE': the value
            value, start = rest, start + len(name) + 1
        kind = alone_token_kind(value)
        if kind == "password" or (kind == "token" and _credential_like(value)):
            yield kind, start, start + len(value)


def _credential_like(value) -> bool:
    """A prefixed token in a command is an id ("pi_3Mtw…", "msg_01…") unless its prefix names a secret or its body
    is longer than ids' usually are."""
    head, sep, body = value.partition("_") if "_" in value[:13] else value.partition("-")
    if not sep or not head.isalpha() or not head.islower() or len(head) > 12:
        return True
    return head in _ID_WORDS or len(body) >= 32
