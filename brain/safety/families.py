"""Vendor token formats, by family: one line per vendor (its documented prefix, the kind it is redacted as, the
shape of the body that follows the prefix, and whether that body must also look machine-made).

A new vendor is one line here: `brain/safety/triggers.py` takes its prefixes from this table (so a text holding
none of them never loads the regex engine) and `brain/safety/shapes.py` compiles each body pattern the first time
a text holds its prefix. Pure data: hooks import this module through triggers, so it imports nothing.

check: None when prefix and body together cannot be anything else; "random" when the prefix is also an ordinary
word or slug ("key-", "live_", "pa-"), so the body must look machine-made (or be hex) for the token to count.
"""

R = "random"

# (prefix, kind, body pattern, check)
TOKENS = (
    ("eyJ", "jwt", r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", None),  # a JSON Web Token
    # --- code hosting and CI ------------------------------------------------------------------------------------
    *((p, "github_token", r"[A-Za-z0-9]{30,}", None) for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    ("github_pat_", "github_token", r"[A-Za-z0-9_]{22,}", None),
    *(("gl" + k + "-", "gitlab_token", r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*", None)
      for k in ("pat", "dt", "rt", "ptt", "cbt", "soat", "oas", "ft", "imt", "agent", "wt", "ffct")),
    ("ATBB", "service_token", r"[A-Za-z0-9_=.-]{32,}", R),  # Bitbucket app password
    ("ATATT", "service_token", r"[A-Za-z0-9_=+/-]{40,400}", R),  # Atlassian API token
    ("ATCTT", "service_token", r"[A-Za-z0-9_=+/-]{40,400}", R),
    ("CCIPAT_", "service_token", r"[A-Za-z0-9_]{40,}", R),  # CircleCI personal
    ("CCIPRJ_", "service_token", r"[A-Za-z0-9_]{40,}", R),  # CircleCI project
    ("bkua_", "service_token", r"[a-f0-9]{40}", R),  # Buildkite
    *((p, "service_token", r"[a-f0-9]{40}", R) for p in ("sqp_", "sqa_", "squ_")),  # SonarQube / SonarCloud
    ("PMAK-", "service_token", r"[a-f0-9]{24}-[a-f0-9]{34}", R),  # Postman
    ("sgp_", "service_token", r"(?:[a-f0-9]{16}_)?[a-f0-9]{40}", R),  # Sourcegraph
    ("rdme_", "service_token", r"[a-z0-9]{70}", R),  # ReadMe
    # --- AI and data platforms ----------------------------------------------------------------------------------
    ("sk-ant-", "anthropic_key", r"[A-Za-z0-9_-]{20,}", None),
    ("sk-", "openai_key", r"(?:(?:proj|svcacct|admin|or-v1)-)?[A-Za-z0-9_-]{20,}", R),  # OpenAI, OpenRouter, DeepSeek
    ("gsk_", "service_token", r"[A-Za-z0-9]{48,56}", R),  # Groq
    ("r8_", "service_token", r"[A-Za-z0-9]{37}", R),  # Replicate
    ("pplx-", "service_token", r"[A-Za-z0-9]{40,56}", R),  # Perplexity
    ("xai-", "service_token", r"[A-Za-z0-9]{60,90}", R),  # xAI
    ("hf_", "huggingface_token", r"[A-Za-z]{30,40}", R),
    ("api_org_", "huggingface_token", r"[A-Za-z]{30,40}", R),
    ("pcsk_", "service_token", r"[A-Za-z0-9_]{40,120}", R),  # Pinecone
    ("lsv2_pt_", "service_token", r"[a-f0-9]{32}_[a-f0-9]{10}", None),  # LangSmith personal
    ("lsv2_sk_", "service_token", r"[a-f0-9]{32}_[a-f0-9]{10}", None),  # LangSmith service
    ("tgp_v1_", "service_token", r"[A-Za-z0-9_-]{40,64}", R),  # Together AI
    ("fw_", "service_token", r"[A-Za-z0-9]{20,48}", R),  # Fireworks AI
    ("csk-", "service_token", r"[a-z0-9]{40,60}", R),  # Cerebras
    ("nvapi-", "service_token", r"[A-Za-z0-9_-]{60,70}", R),  # NVIDIA
    ("jina_", "service_token", r"[A-Za-z0-9_-]{50,80}", R),  # Jina AI
    ("pa-", "service_token", r"[A-Za-z0-9_-]{40,50}", R),  # Voyage AI
    ("esecret_", "service_token", r"[A-Za-z0-9]{20,}", R),  # Anyscale
    ("dapi", "service_token", r"[a-f0-9]{32}(?:-[0-9])?", R),  # Databricks
    ("napi_", "service_token", r"[a-z0-9]{60,72}", R),  # Neon
    ("sbp_", "service_token", r"[a-f0-9]{40}", R),  # Supabase
    ("sb_secret_", "service_token", r"[A-Za-z0-9_-]{20,64}", R),
    ("pscale_tkn_", "service_token", r"[A-Za-z0-9_]{32,64}", R),  # PlanetScale
    ("pscale_pw_", "password", r"[A-Za-z0-9_]{32,64}", R),
    ("pscale_oauth_", "service_token", r"[A-Za-z0-9_]{32,64}", R),
    ("AstraCS:", "service_token", r"[A-Za-z0-9]{20,30}:[a-f0-9]{64}", None),  # DataStax Astra
    ("glc_", "service_token", r"[A-Za-z0-9_=+/-]{32,400}", R),  # Grafana Cloud
    ("glsa_", "service_token", r"[A-Za-z0-9]{32}_[a-f0-9]{8}", R),  # Grafana service account
    # --- cloud providers and their session tokens ---------------------------------------------------------------
    *((p, "aws_access_key", r"[A-Z0-9]{16}", None) for p in ("AKIA", "ASIA", "ABIA", "ACCA")),
    ("IQoJb3JpZ2luX2Vj", "token", r"[A-Za-z0-9+/=]{60,2000}", None),  # AWS STS session token
    ("FwoGZXIvYXdzE", "token", r"[A-Za-z0-9+/=]{60,2000}", None),  # AWS STS session token (older)
    ("AIza", "google_api_key", r"[A-Za-z0-9_-]{35}", R),
    ("GOCSPX-", "service_token", r"[A-Za-z0-9_-]{24,40}", R),  # Google OAuth client secret
    ("ya29.", "service_token", r"[A-Za-z0-9_.-]{30,2048}", R),  # Google OAuth access token
    ("1//0", "service_token", r"[A-Za-z0-9_-]{40,512}", R),  # Google OAuth refresh token
    ("LTAI", "service_token", r"[A-Za-z0-9]{12,24}", R),  # Alibaba Cloud
    ("AKID", "service_token", r"[A-Za-z0-9]{32}", R),  # Tencent Cloud
    ("SCW", "service_token", r"[A-Z0-9]{17}", R),  # Scaleway access key
    ("dop_v1_", "digitalocean_token", r"[a-f0-9]{64}", R),
    ("doo_v1_", "digitalocean_token", r"[a-f0-9]{64}", R),
    ("dor_v1_", "digitalocean_token", r"[a-f0-9]{64}", R),
    ("v1.0-", "service_token", r"[a-f0-9]{24}-[a-f0-9]{140,160}", None),  # Cloudflare Origin CA key
    ("HRKU-", "service_token", r"[A-Za-z0-9_-]{40,70}", R),  # Heroku
    ("rnd_", "service_token", r"[A-Za-z0-9]{24,48}", R),  # Render
    ("nfp_", "service_token", r"[A-Za-z0-9]{36,48}", R),  # Netlify
    *((p, "service_token", r"[A-Za-z0-9+/=_-]{60,2000}", R) for p in ("fm1r_", "fm1a_", "fm2_")),  # Fly.io
    ("SWMTKN-1-", "token", r"[a-z0-9]{50}-[a-z0-9]{25}", None),  # Docker Swarm join token
    ("K10", "token", r"[a-f0-9]{64}::[a-z]{2,12}:[A-Za-z0-9]{12,}", None),  # k3s join token
    ("tskey-", "service_token", r"[a-z]{3,8}-[A-Za-z0-9]{10,20}-[A-Za-z0-9]{20,40}", None),  # Tailscale
    *((p, "private_key", r"[A-Z2-7]{55}", None) for p in ("SUA", "SOA", "SAA", "SNA")),  # NATS nkey seeds
    ("hvs.", "service_token", r"[A-Za-z0-9_-]{24,400}", R),  # HashiCorp Vault
    ("hvb.", "service_token", r"[A-Za-z0-9_-]{24,400}", R),
    ("hvr.", "service_token", r"[A-Za-z0-9_-]{24,400}", R),
    ("pul-", "service_token", r"[a-f0-9]{40}", R),  # Pulumi
    ("eyJhIjoi", "token", r"[A-Za-z0-9+/=_-]{40,2000}", None),  # Cloudflare Tunnel token (base64 of {"a":…)
    # --- secret managers and password managers ------------------------------------------------------------------
    *((p, "service_token", r"[A-Za-z0-9_.-]{40,80}", R) for p in ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.",
                                                                  "dp.scim.", "dp.audit.")),  # Doppler
    ("ops_eyJ", "service_token", r"[A-Za-z0-9_.-]{100,2000}", R),  # 1Password service account
    ("A3-", "secret", r"[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}", None),  # 1Password
    ("0.", "service_token", r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9]{20,40}"
     r":[A-Za-z0-9+/=]{20,40}", None),  # Bitwarden machine account
    ("AGE-SECRET-KEY-1", "private_key", r"[0-9A-Z]{58}", None),  # age
    ("AGE-PLUGIN-", "private_key", r"[0-9A-Z-]{20,}", R),
    # --- observability and SaaS APIs ----------------------------------------------------------------------------
    ("sntrys_", "service_token", r"[A-Za-z0-9_=+/-]{40,400}", R),  # Sentry
    ("sntryu_", "service_token", r"[a-f0-9]{64}", R),
    ("NRAK-", "service_token", r"[A-Z0-9]{27}", R),  # New Relic
    ("NRII-", "service_token", r"[A-Za-z0-9_-]{32}", R),
    ("NRJS-", "service_token", r"[a-f0-9]{19}", R),
    *((p, "service_token", r"[a-z0-9]{32,64}", R) for p in ("hcaik_", "hcxik_", "hcaic_", "hcxmk_")),  # Honeycomb
    ("dt0c01.", "service_token", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", None),  # Dynatrace
    ("dt0s01.", "service_token", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", None),
    ("lin_api_", "service_token", r"[A-Za-z0-9]{30,64}", R),  # Linear
    ("lin_oauth_", "service_token", r"[A-Za-z0-9]{30,64}", R),
    ("ntn_", "service_token", r"[A-Za-z0-9]{40,60}", R),  # Notion
    ("secret_", "secret", r"[A-Za-z0-9]{40,50}", R),  # Notion (older integration tokens)
    ("figd_", "service_token", r"[A-Za-z0-9_-]{38,64}", R),  # Figma
    ("fo1_", "service_token", r"[A-Za-z0-9_-]{40,64}", R),
    ("tfp_", "service_token", r"[A-Za-z0-9_-]{40,60}", R),  # Typeform
    ("CFPAT-", "service_token", r"[A-Za-z0-9_-]{43}", R),  # Contentful
    ("pat-na1-", "service_token", r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", None),  # HubSpot
    ("pat-eu1-", "service_token", r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", None),
    ("pat", "api_key", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", None),  # Airtable
    ("1/", "service_token", r"[0-9]{10,20}:[a-f0-9]{32}", None),  # Asana
    ("2/", "service_token", r"[0-9]{10,20}/[0-9]{10,20}:[a-f0-9]{32}", None),
    ("pk_", "service_token", r"[0-9]{6,10}_[A-Z0-9]{32}", None),  # ClickUp
    ("dG9rOj", "service_token", r"[A-Za-z0-9+/=_-]{30,200}", R),  # Intercom (base64 of "tok:")
    ("sk.eyJ", "service_token", r"[A-Za-z0-9_.-]{50,400}", R),  # Mapbox secret
    ("sl.", "service_token", r"[A-Za-z0-9_-]{100,2000}", R),  # Dropbox
    ("AKCp", "service_token", r"[A-Za-z0-9]{60,80}", R),  # JFrog
    ("cmVmdGtuOjAxOj", "service_token", r"[A-Za-z0-9+/=]{40,200}", R),  # JFrog reference token
    ("aio_", "service_token", r"[A-Za-z0-9]{28}", R),  # Adafruit IO
    ("pnu_", "service_token", r"[A-Za-z0-9]{36}", R),  # Prefect
    ("tk-us-", "service_token", r"[A-Za-z0-9_-]{48}", R),  # Scalingo
    ("fio-u-", "service_token", r"[A-Za-z0-9_=-]{64}", R),  # Frame.io
    ("EZAK", "service_token", r"[A-Za-z0-9]{54}", R),  # EasyPost
    ("EZTK", "service_token", r"[A-Za-z0-9]{54}", R),
    ("shippo_live_", "service_token", r"[a-f0-9]{40}", R),
    ("shippo_test_", "service_token", r"[a-f0-9]{40}", R),
    ("duffel_live_", "service_token", r"[A-Za-z0-9_-]{43}", R),
    ("duffel_test_", "service_token", r"[A-Za-z0-9_-]{43}", R),
    ("django-insecure-", "secret", r"[A-Za-z0-9!@#$%^&*(\-_=+)]{30,80}", None),  # Django's generated SECRET_KEY
    ("base64:", "secret", r"[A-Za-z0-9+/]{42,43}=", R),  # Laravel APP_KEY
    # --- messaging and e-mail -----------------------------------------------------------------------------------
    *(("xox" + c + "-", "slack_token", r"[A-Za-z0-9%-]{10,}", None) for c in "abposred"),  # (xoxd-: a cookie)
    ("xapp-", "slack_token", r"[0-9]-[A-Za-z0-9-]{20,}", None),
    ("SG.", "sendgrid_key", r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", R),
    ("key-", "mailgun_key", r"[a-zA-Z0-9]{32}", R),
    ("xkeysib-", "service_token", r"[a-f0-9]{64}-[A-Za-z0-9]{16}", R),  # Brevo
    ("xsmtpsib-", "service_token", r"[a-f0-9]{64}-[A-Za-z0-9]{16}", R),
    ("md-", "service_token", r"[A-Za-z0-9_-]{22}", R),  # Mandrill
    ("re_", "service_token", r"[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", R),  # Resend
    ("KEY", "service_token", r"[0-9A-F]{32}_[A-Za-z0-9]{22}", None),  # Telnyx
    ("AC", "twilio_key", r"[a-f0-9]{32}", None),  # Twilio account SID (its auth token follows: shapes.py)
    ("SK", "twilio_key", r"[a-f0-9]{32}", None),
    ("EAACEdEose0cBA", "service_token", r"[A-Za-z0-9]{20,}", R),  # Facebook
    ("EAA", "service_token", r"[A-Za-z0-9]{90,400}", R),  # Meta (WhatsApp, Graph API)
    # --- payments -----------------------------------------------------------------------------------------------
    *((p, "stripe_key", r"[A-Za-z0-9]{10,}", None) for p in ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    ("whsec_", "stripe_key", r"[A-Za-z0-9+/=]{20,}", None),
    ("sq0atp-", "service_token", r"[A-Za-z0-9_-]{22,60}", R),  # Square
    ("sq0csp-", "service_token", r"[A-Za-z0-9_-]{40,60}", R),
    ("EAAA", "service_token", r"[A-Za-z0-9_-]{60}", R),  # Square access token
    ("access_token$production$", "service_token", r"[a-z0-9]{16}\$[a-f0-9]{32}", None),  # PayPal / Braintree
    ("access_token$sandbox$", "service_token", r"[a-z0-9]{16}\$[a-f0-9]{32}", None),
    ("AQE", "service_token", r"[A-Za-z0-9+/=_.-]{80,400}", R),  # Adyen
    ("live_", "service_token", r"[A-Za-z0-9_-]{30,60}", R),  # Mollie, GoCardless
    ("test_", "service_token", r"[A-Za-z0-9]{30,60}", R),
    ("sandbox_", "service_token", r"[A-Za-z0-9_-]{30,60}", R),
    ("sk_sbox_", "service_token", r"[a-z0-9]{26,40}", R),  # Checkout.com
    *((p, "service_token", r"[a-z0-9-]{36}", None) for p in (
        "access-sandbox-", "access-development-", "access-production-")),  # Plaid
    ("pdl_live_apikey_", "service_token", r"[A-Za-z0-9_]{30,80}", R),  # Paddle
    ("pdl_sdbx_apikey_", "service_token", r"[A-Za-z0-9_]{30,80}", R),
    ("xnd_production_", "service_token", r"[A-Za-z0-9]{40,70}", R),  # Xendit
    ("xnd_development_", "service_token", r"[A-Za-z0-9]{40,70}", R),
    ("Mid-server-", "service_token", r"[A-Za-z0-9_-]{20,30}", R),  # Midtrans
    ("rzp_live_", "service_token", r"[A-Za-z0-9]{14,}", R),  # Razorpay
    ("rzp_test_", "service_token", r"[A-Za-z0-9]{14,}", R),
    ("FLWSECK", "service_token", r"(?:_TEST)?-[a-h0-9]{32}-X", None),  # Flutterwave
    # --- package registries -------------------------------------------------------------------------------------
    ("npm_", "npm_token", r"[A-Za-z0-9]{36}", R),
    ("pypi-", "pypi_token", r"[A-Za-z0-9_-]{50,512}", R),
    ("rubygems_", "service_token", r"[a-f0-9]{48}", R),
    ("oy2", "service_token", r"[a-z0-9]{43}", R),  # NuGet
    ("cio", "service_token", r"[A-Za-z0-9]{32}", R),  # crates.io
    ("dckr_pat_", "service_token", r"[A-Za-z0-9_-]{27}", R),  # Docker Hub
    ("dckr_oat_", "service_token", r"[A-Za-z0-9_-]{27,40}", R),
    ("CLOJARS_", "service_token", r"[a-f0-9]{60}", R),
    # --- wallets ------------------------------------------------------------------------------------------------
    *((p, "private_key", r"[1-9A-HJ-NP-Za-km-z]{100,112}", None) for p in ("xprv", "tprv", "yprv", "zprv")),
    ("nsec1", "private_key", r"[02-9ac-hj-np-z]{58}", None),  # Nostr
    # --- private keys written in base64 (kubeconfig's client-key-data, a Kubernetes secret) ----------------------
    *((p, "private_key", r"[A-Za-z0-9+/=]{16,}", None) for p in (
        "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBL", "LS0tLS1CRUdJTiBQUklWQVRFIEtF", "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtF",
        "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZ", "LS0tLS1CRUdJTiBFTkNSWVBURUQgUFJJVkFURSBL",
        "LS0tLS1CRUdJTiBEU0EgUFJJVkFURSBL", "LS0tLS1CRUdJTiBQR1AgUFJJVkFURSBLRVkgQkxP")),
)

# Prefixes distinctive enough to count even when glued to a word before them ("session-ghp_…", "x_AKIA…"); the
# others ("sk-", "key-", "AC") need a real token start ("task-sk-list" is a slug).
GLUED = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "sk-ant-",
         "sk_live_", "rk_live_", "AKIA", "ASIA", "AIza", "npm_", "hf_", "shpat_", "dop_v1_", "pypi-", "SG.",
         "dckr_pat_", "hvs.", "pcsk_", "lsv2_pt_", "lsv2_sk_", "sntrys_", "glsa_", "xkeysib-", "django-insecure-")

# Shopify's four token kinds share one shape.
TOKENS += tuple((p, "shopify_token", r"[a-fA-F0-9]{32}", R) for p in ("shpat_", "shpss_", "shpca_", "shppa_"))
