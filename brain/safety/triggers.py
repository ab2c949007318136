"""Can this text hold a secret? The cheap substrings every secret shape of `redact` contains, checked without `re`.

Each rule of `brain/safety/redact.py` runs only when one of its triggers occurs in the text, and takes its
triggers from here; so `may_hold_secret(text) is False` means `redact(text) == text`, and a writer on a hook's
path (`brain/util/files.py`) can skip loading the regex engine (~3 ms, plus compiling the rules) for strings like
ids, timestamps and paths. tests/test_redact.py checks that every secret of the corpus trips a trigger.
"""

# Substrings looked for in the lower-cased text.
PRIVATE_SPAN = ("<private",)  # brain/safety/private.TRIGGER
PRIVATE_KEY = ("private key", "secret-key-")
AWS_SECRET = ("secret_access", "secretaccess", "aws_secret", "awssecret")
AUTHORIZATION = ("authorization",)
BEARER = ("bearer",)
COOKIE = ("cookie",)
ASSIGNMENT = ("pass", "secret", "token", "key", "pwd", "auth", "credential")
PROSE = ("key", "token", "secret", "pass", "pwd", "credential", "creds", "auth", "sid")
URL = ("://",)
# A vendor token not in the table but named by a word of its prefix (brain/safety/shapes.py: GENERIC_PREFIX_WORDS)
GENERIC_PREFIX = tuple(w + sep for w in ("tkn", "tok", "sec", "pat", "api", "pw", "cred", "access", "refresh")
                       for sep in "_-")
# Command lines that pass a password (brain/safety/shapes.py: _CLI_COMMANDS): a line is read only when it holds
# one of CLI_MARKERS (a flag, `set`, `config`, `login`) and one of these names, so both must be present.
CLI_MARKERS = (" -", "\t-", " set ", " config ", " login ")
CLI = ("mysql", "mariadb", "sshpass", "curl", "docker", "podman", "nerdctl", "helm", "buildah", "skopeo", "oras",
       "redis-cli", "ldap", "sqlcmd", "bcp", "7z", "unrar", "rar", "zip", "wget", "smbclient", "htpasswd", "openssl",
       "mongo", "lftp", "mosquitto", "ipmitool", "freerdp", "rdesktop", "snmp", "az", "gh", "crane", "finch",
       "osql", "isql", "smb", "rpcclient", "vault", "config")

# Substrings looked for in the text as it is (their case is part of the shape).
SERVICE_PREFIXES = (
    # prefix, kind: a token that starts with one of these (after a non-token character) is checked by its body
    "AIza", "GOCSPX-", "ya29.", "SG.", "npm_", "pypi-", "hf_", "api_org_", "shpat_", "shpss_", "shpca_", "shppa_",
    "dop_v1_", "doo_v1_", "dor_v1_", "key-", "xkeysib-", "xsmtpsib-", "sq0atp-", "sq0csp-", "ATATT", "PMAK-",
    "NRAK-", "NRII-", "hvs.", "hvb.", "hvr.", "dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "figd_",
    "lin_api_", "ntn_", "sbp_", "sb_secret_", "nfp_", "fo1_", "rnd_", "pul-", "AGE-SECRET-KEY-1", "LTAI", "AKID",
    "dapi", "gsk_", "r8_", "pplx-", "xai-", "dckr_pat_", "sntrys_", "sntryu_", "glc_", "glsa_", "CFPAT-",
    "sk.eyJ", "EZAK", "EZTK", "shippo_live_", "shippo_test_", "HRKU-", "AC", "SK", "ops_eyJ", "tskey-",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-",
    "gloas-", "glft-", "glimt-", "glagent-", "sk-", "xox", "xapp-", "sk_", "rk_", "whsec_", "AKIA", "ASIA", "eyJ",
    "PRIVATE KEY", "Q~", ":AA", "sig=", "AccountKey=", "SharedAccessKey=", "LS0tLS1CRUdJTi", "sl.", "AKCp", "aio_",
    "CLOJARS_", "pnu_", "rdme_", "rubygems_", "tk-us-", "tfp_", "ATBB", "ATCTT", "bkua_", "CCIPAT_", "duffel_",
    "dt0c01.", "EAACEdEose0cBA", "FLWSECK", "rzp_live_", "fio-u-", ".atlasv1.", "-us",
)
# A Discord bot token is shape only: base64 of the bot's id, whose first digit makes it start with one of these.
DISCORD_STARTS = ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")
CASED = SERVICE_PREFIXES + DISCORD_STARTS
LOWER = tuple(dict.fromkeys(PRIVATE_SPAN + PRIVATE_KEY + AWS_SECRET + AUTHORIZATION + BEARER + COOKIE + ASSIGNMENT
                            + PROSE + URL + GENERIC_PREFIX))


def may_hold_secret(text: str) -> bool:
    """False only when no rule of `redact` could fire on `text` (so redacting it would change nothing)."""
    for trigger in CASED:
        if trigger in text:
            return True
    lower = text.lower()
    for trigger in LOWER:
        if trigger in lower:
            return True
    # (a time stamp ending in "…47Z" holds "7z": a command name alone is not enough)
    return any(m in lower for m in CLI_MARKERS) and any(name in lower for name in CLI)
