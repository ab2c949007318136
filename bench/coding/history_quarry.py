"""History D (held out): eight weeks of Claude Code sessions on "quarry", a Rust build-artifact cache for CI.

quarry is an axum + tokio service with Postgres 16 (through sqlx) for metadata and S3-compatible object storage
(MinIO) for content-addressed blobs. Over seven sessions values change in varied ways: the listen port (the reason
given first), the upload size cap ("bump it to 1 GB"), the S3 client library (rusoto is unmaintained, moved to
aws-sdk-s3), the retry count ("from 3 to 5"), the request timeout, the Rust toolchain (forced by a build error),
the axum version, the artifact retention (the user only states the new value), the sweeper schedule, the staging
hostname (the old one appears again only in a code edit) and the connection-pool size. Commands fail and are fixed,
the user corrects the assistant and states preferences, and the last session leaves open work.

Written without looking at the recall code, its lexicon or the other histories (only the file format of history A
was read), so it checks that recall generalises to a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "quarry"

SESSIONS = [
    ("q1-skeleton", 58, [
        User("New project: quarry. It's a build-artifact cache for our CI: runners push build outputs, later jobs "
             "pull them by key so they don't rebuild. Rust, axum on tokio, and Postgres 16 through sqlx for the "
             "metadata. The blobs themselves go to object storage, but that can wait, just get a skeleton up."),
        Assistant("I'll set up a binary crate with axum 0.7, tokio with the full feature set, sqlx with the postgres "
                  "and runtime-tokio-rustls features, and tower-http for the middleware layers. I'm also pinning the "
                  "toolchain to 1.79 in rust-toolchain.toml so CI and everyone's laptop build with the same compiler.",
                  [Bash("cargo init --bin quarry && cd quarry && cargo add axum@0.7 tokio --features full && "
                        "cargo add sqlx --features postgres,runtime-tokio-rustls,macros,uuid,time && "
                        "cargo add tower-http --features trace,timeout,limit && cargo add tracing tracing-subscriber "
                        "--features tracing-subscriber/env-filter",
                        "     Created binary (application) package\n    Updating crates.io index\n"
                        "      Adding axum v0.7.5 to dependencies\n      Adding tokio v1.38.0 to dependencies\n"
                        "      Adding sqlx v0.8.0 to dependencies\n      Adding tower-http v0.5.2 to dependencies"),
                   Write("rust-toolchain.toml", "[toolchain]\nchannel = \"1.79\"\ncomponents = [\"clippy\", "
                         "\"rustfmt\"]\n"),
                   Write("src/main.rs", "#[tokio::main]\nasync fn main() -> anyhow::Result<()> {\n"
                         "    tracing_subscriber::fmt().with_env_filter(EnvFilter::from_default_env()).init();\n"
                         "    let pool = PgPoolOptions::new().max_connections(10).connect(&db_url).await?;\n"
                         "    let listener = TcpListener::bind(\"0.0.0.0:3000\").await?;\n"
                         "    axum::serve(listener, app(pool)).await?;\n    Ok(())\n}\n")]),
        User("Port 3000 is fine for now. And use tracing everywhere please, I don't want log:: macros or println! "
             "anywhere in the service code."),
        Assistant("Understood, tracing only. main.rs installs a tracing-subscriber with an EnvFilter, so "
                  "RUST_LOG=quarry=debug turns on debug output for our crate. The database pool is PgPoolOptions "
                  "with max_connections = 10, and the server listens on port 3000 (0.0.0.0:3000).",
                  [Bash("RUST_LOG=quarry=debug cargo run",
                        "   Compiling quarry v0.1.0 (/home/dev/quarry)\n    Finished `dev` profile in 41.2s\n"
                        "     Running `target/debug/quarry`\n2024-06-10T09:41:07Z  INFO quarry: listening on "
                        "0.0.0.0:3000")]),
        User("Set up the migrations. Where do they live with sqlx?"),
        Assistant("sqlx-cli keeps them in migrations/ at the crate root, one reversible pair per change. I'll "
                  "install the CLI and add the first one for the artifacts table.",
                  [Bash("cargo install sqlx-cli --no-default-features --features rustls,postgres",
                        "  Installed package `sqlx-cli v0.8.0` (executables `cargo-sqlx`, `sqlx`)"),
                   Bash("sqlx migrate add -r create_artifacts",
                        "Creating migrations/20240610094512_create_artifacts.up.sql\n"
                        "Creating migrations/20240610094512_create_artifacts.down.sql"),
                   Bash("sqlx migrate run",
                        "error: DATABASE_URL must be set: environment variable not found", ok=False)]),
        Assistant("`sqlx migrate run` failed because DATABASE_URL wasn't set: there was no .env yet. I added a .env "
                  "with DATABASE_URL=postgres://quarry:quarry@localhost:5432/quarry_dev, which both sqlx-cli and "
                  "dotenvy pick up, and ran the migration again.",
                  [Write(".env", "DATABASE_URL=postgres://quarry:quarry@localhost:5432/quarry_dev\n"),
                   Bash("sqlx migrate run", "Applied 20240610094512/migrate create artifacts (14.872ms)")]),
        User("Make sure .env never gets committed."),
        Assistant("It's in .gitignore now, and I added a .env.example with placeholder values for people to copy.",
                  [Edit(".gitignore", "/target\n", "/target\n.env\n"),
                   Write(".env.example", "DATABASE_URL=postgres://USER:PASSWORD@localhost:5432/quarry_dev\n")]),
        User("For errors: thiserror inside the modules, anyhow only in main. And no unwrap() outside tests. If "
             "something truly can't fail, use expect with a message that says why. Also, how should I run the "
             "tests?"),
        Assistant("Noted. src/error.rs has an AppError enum derived with thiserror that implements IntoResponse, so "
                  "handlers return Result<_, AppError> and map to proper status codes; anyhow is only used in "
                  "main.rs. For tests I'd use cargo-nextest rather than plain cargo test: it runs each test in its "
                  "own process, is faster on this kind of crate and the output is much easier to read. The command "
                  "is `cargo nextest run`.",
                  [Write("src/error.rs", "#[derive(Debug, thiserror::Error)]\npub enum AppError {\n"
                         "    #[error(\"artifact not found\")]\n    NotFound,\n    #[error(transparent)]\n"
                         "    Db(#[from] sqlx::Error),\n}\n"),
                   Bash("cargo install cargo-nextest --locked && cargo nextest run",
                        "    Starting 3 tests across 1 binary\n        PASS [   0.012s] quarry routes::tests::"
                        "get_missing_is_404\n        PASS [   0.015s] quarry routes::tests::put_then_get\n"
                        "        PASS [   0.009s] quarry error::tests::not_found_maps_to_404\n"
                        "     Summary [   0.031s] 3 tests run: 3 passed, 0 skipped")]),
        User("Nextest is fine. Add clippy to the checks as well, any warning should fail."),
        Assistant("There's a justfile now: `just check` runs cargo fmt --check, "
                  "`cargo clippy --all-targets -- -D warnings` and cargo nextest run. Clippy found a redundant "
                  "clone in routes.rs on the first run, which I removed.",
                  [Write("justfile", "check:\n    cargo fmt --check\n    cargo clippy --all-targets -- -D warnings\n"
                         "    cargo nextest run\n"),
                   Bash("just check", "error: redundant clone\n  --> src/routes.rs:18:27\n   |\n18 |     let key = "
                        "path.key.clone();\n   |                           ^^^^^^^^ help: remove this", ok=False),
                   Edit("src/routes.rs", "let key = path.key.clone();", "let key = path.key;"),
                   Bash("just check", "     Summary [   0.030s] 3 tests run: 3 passed, 0 skipped"),
                   Todo([("Scaffold axum service", "completed"), ("Set up sqlx migrations", "completed"),
                         ("Store blobs in object storage", "pending"), ("Auth tokens for CI runners", "pending")])]),
    ]),
    ("q2-blobs", 50, [
        User("Blob storage today. Locally we'll run MinIO in docker compose. The old ci-cache service already has "
             "S3 code using rusoto, let's reuse that instead of writing it from scratch."),
        Assistant("I'll port the rusoto_s3 client over from ci-cache. docker-compose.yml runs MinIO with the S3 API "
                  "on 9000 and the web console on 9001, and I created a bucket called quarry-blobs.",
                  [Write("docker-compose.yml", "services:\n  minio:\n    image: minio/minio:latest\n"
                         "    command: server /data --console-address :9001\n    ports: [\"9000:9000\", "
                         "\"9001:9001\"]\n"),
                   Bash("docker compose up -d minio && mc alias set local http://localhost:9000 minioadmin "
                        "minioadmin && mc mb local/quarry-blobs",
                        "[+] Running 1/1\n ✔ Container quarry-minio-1  Started\nAdded `local` successfully.\n"
                        "Bucket created successfully `local/quarry-blobs`."),
                   Write("src/storage.rs", "pub async fn put_blob(&self, key: &str, body: Bytes) -> Result<(), "
                         "AppError> {\n    let req = PutObjectRequest { bucket: self.bucket.clone(), key: "
                         "format!(\"artifacts/{key}\"), body: Some(body.to_vec().into()), ..Default::default() };\n"
                         "    self.s3.put_object(req).await?;\n    Ok(())\n}\n")]),
        Assistant("Uploads currently land in the bucket at artifacts/{key}, using the key the runner sends."),
        User("No, don't key the blobs by artifact name. Two jobs upload the same bytes under different keys all "
             "the time. Store them by content hash and keep the key to hash mapping in Postgres."),
        Assistant("Right, content-addressed it is, so identical outputs are stored once. For the hash: sha256 is "
                  "the conservative choice, blake3 is several times faster on large files and the crate is mature. "
                  "Which do you prefer?"),
        User("Let's use blake3."),
        Assistant("Done. The upload handler hashes the body with blake3 while streaming it to a temp file, then "
                  "stores the blob at blobs/<first two hex chars>/<full blake3 hash>. The artifacts table maps "
                  "(project, key) to the hash and size, so uploading the same bytes twice stores one object.",
                  [Edit("src/storage.rs", "format!(\"artifacts/{key}\")",
                        "format!(\"blobs/{}/{}\", &hash[..2], hash)"),
                   Bash("sqlx migrate add -r artifacts_by_hash && sqlx migrate run",
                        "Applied 20240618101203/migrate artifacts by hash (9.114ms)"),
                   Bash("cargo nextest run", "     Summary [   0.412s] 7 tests run: 7 passed, 0 skipped")]),
        User("What's the largest upload we accept?"),
        Assistant("axum's default body limit is 2 MB, which is useless for build outputs, so I disabled it on the "
                  "upload route and put a RequestBodyLimitLayer of 256 MB there instead.",
                  [Edit("src/routes.rs", ".route(\"/v1/artifacts/:project/*key\", put(upload))",
                        ".route(\"/v1/artifacts/:project/*key\", put(upload))\n"
                        "        .layer(DefaultBodyLimit::disable())\n"
                        "        .layer(RequestBodyLimitLayer::new(256 * 1024 * 1024))")]),
        User("256 MB is plenty for now. What happens if MinIO hiccups mid-upload?"),
        Assistant("rusoto doesn't retry PutObject by itself, so storage.rs wraps it in a small loop: an upload is "
                  "retried up to 3 times with exponential backoff starting at 200 ms, and only then does the "
                  "request fail with a 502.",
                  [Edit("src/storage.rs", "self.s3.put_object(req).await?;",
                        "retry(3, Duration::from_millis(200), || self.s3.put_object(req.clone())).await?;")]),
        User("Try it end to end."),
        Assistant("Pushed the release binary as a test artifact and fetched it back; the bytes match.",
                  [Bash("curl -sS -X PUT --data-binary @target/release/quarry "
                        "localhost:3000/v1/artifacts/demo/bin/quarry && curl -sS "
                        "localhost:3000/v1/artifacts/demo/bin/quarry -o /tmp/q && cmp /tmp/q target/release/quarry "
                        "&& echo same",
                        "{\"project\":\"demo\",\"key\":\"bin/quarry\",\"hash\":\"9f2c41d07be1a35e\u2026\","
                        "\"size\":8421376}\nsame")]),
        Assistant("", [Todo([("Store blobs in object storage", "completed"),
                             ("Content-addressed blob layout", "completed"),
                             ("Auth tokens for CI runners", "pending"),
                             ("Expire old artifacts", "pending")])]),
    ]),
    ("q3-auth", 43, [
        User("Grafana on the shared dev box already sits on 3000 and we keep colliding. Move quarry to 7410."),
        Assistant("Changed the default bind address to 0.0.0.0:7410. It can still be overridden with the "
                  "QUARRY_BIND environment variable, and .env.example documents it.",
                  [Edit("src/main.rs", "TcpListener::bind(\"0.0.0.0:3000\")",
                        "TcpListener::bind(env::var(\"QUARRY_BIND\").as_deref().unwrap_or(\"0.0.0.0:7410\"))"),
                   Edit(".env.example", "", "QUARRY_BIND=0.0.0.0:7410\n"),
                   Bash("cargo run & sleep 5; curl -s -o /dev/null -w '%{http_code}\\n' "
                        "localhost:7410/v1/artifacts/demo/bin/quarry", "200")]),
        User("Now auth. CI runners need a token to push or delete. Pulling can stay open, it's only reachable "
             "inside the VPN anyway."),
        Assistant("Plan: an api_tokens table; tokens look like qry_ followed by 32 random characters, and we only "
                  "store a SHA-256 of each token, never the token itself. A FromRequestParts extractor checks "
                  "Authorization: Bearer on PUT and DELETE. Tokens are global, each with a name and created_at."),
        User("That's wrong, tokens have to be scoped to a project. The android runners must not be able to "
             "overwrite the backend team's artifacts."),
        Assistant("Fair point. api_tokens has a project_id column now, and the extractor rejects a write to "
                  "/v1/artifacts/{project}/... with 403 Forbidden when the token belongs to a different project.",
                  [Write("migrations/20240625140301_api_tokens.up.sql",
                         "CREATE TABLE api_tokens (\n  id uuid PRIMARY KEY,\n  project_id uuid NOT NULL REFERENCES "
                         "projects(id),\n  name text NOT NULL,\n  token_sha256 bytea NOT NULL UNIQUE,\n"
                         "  created_at timestamptz NOT NULL DEFAULT now()\n);\n"),
                   Edit("src/auth.rs", "pub struct Writer { pub token_id: Uuid }",
                        "pub struct Writer { pub token_id: Uuid, pub project_id: Uuid }"),
                   Bash("sqlx migrate run && cargo nextest run",
                        "Applied 20240625140301/migrate api tokens (11.02ms)\n"
                        "     Summary [   0.603s] 12 tests run: 12 passed, 0 skipped")]),
        User("How do I mint one of these tokens?"),
        Assistant("With the admin subcommand: `cargo run -- token create --project android --name gh-runners`. It "
                  "prints the token exactly once; only the hash is kept, so store it in the CI secrets straight "
                  "away.",
                  [Bash("cargo run -q -- token create --project android --name gh-runners",
                        "created token gh-runners for project android:\nqry_7Hc2kQ9vX1mN4pL8rT0sW3yZ6bD5fG2a\n"
                        "(this is the only time it is shown)")]),
        User("CI is red on the PR. Can you take a look?"),
        Assistant("", [Bash("gh run view --log-failed | tail -n 6",
                            "error: set `DATABASE_URL` to use query macros online, or run `cargo sqlx prepare` to "
                            "update the query cache\n  --> src/auth.rs:41:17\n   |\n41 |     let row = "
                            "sqlx::query_as!(TokenRow,\n   |               ^^^^^^^^^^^^^^^^^^^^^^^^^\nerror: could "
                            "not compile `quarry` (bin \"quarry\") due to 6 previous errors")]),
        Assistant("The query! and query_as! macros check the SQL against a live database at compile time, and the "
                  "CI runner doesn't have one. I ran `cargo sqlx prepare`, which writes the query metadata into the "
                  ".sqlx/ directory, committed that directory, and set SQLX_OFFLINE=true in the workflow. Whenever "
                  "you change a query, rerun cargo sqlx prepare or CI will go red again.",
                  [Bash("cargo sqlx prepare", "query data written to .sqlx in the current directory; please check "
                        "this into version control"),
                   Edit(".github/workflows/ci.yml", "    env:\n      RUSTFLAGS: -Dwarnings",
                        "    env:\n      RUSTFLAGS: -Dwarnings\n      SQLX_OFFLINE: \"true\""),
                   Bash("git add .sqlx .github/workflows/ci.yml && git push && gh run watch --exit-status",
                        "✓ main CI · 9611840213\nTriggered via push about 4 minutes ago\n✓ check in 3m12s")]),
        User("Also put a timeout on requests, a stuck client shouldn't be able to hold a connection forever."),
        Assistant("Added tower-http's TimeoutLayer to the router with a request timeout of 30 seconds; a request "
                  "that runs longer gets a 408.",
                  [Edit("src/routes.rs", ".layer(TraceLayer::new_for_http())",
                        ".layer(TraceLayer::new_for_http())\n        .layer(TimeoutLayer::new("
                        "Duration::from_secs(30)))")]),
        Assistant("", [Todo([("Auth tokens for CI runners", "completed"), ("Scope tokens per project",
                                                                           "completed"),
                             ("Fix sqlx offline build in CI", "completed"), ("Expire old artifacts", "pending"),
                             ("Container image and staging deploy", "pending")])]),
    ]),
    ("q4-gc-staging", 36, [
        User("Artifacts shouldn't live forever. Expire them after 14 days unless someone pinned them."),
        Assistant("I'll add pinned and expires_at columns plus a sweeper: a tokio task spawned at startup that "
                  "uses tokio::time::interval to run every hour. Each pass deletes expired, unpinned artifact rows "
                  "and then removes blobs that no remaining artifact points to.",
                  [Write("src/gc.rs", "const DEFAULT_RETENTION: Duration = Duration::from_secs(14 * 24 * 3600);\n"
                         "pub fn spawn(state: AppState) {\n    tokio::spawn(async move {\n"
                         "        let mut tick = tokio::time::interval(Duration::from_secs(3600));\n"
                         "        loop { tick.tick().await; sweep(&state).await; }\n    });\n}\n"),
                   Bash("sqlx migrate add -r artifact_expiry && sqlx migrate run && cargo sqlx prepare && "
                        "cargo nextest run",
                        "Applied 20240702093015/migrate artifact expiry (8.3ms)\nquery data written to .sqlx\n"
                        "     Summary [   0.911s] 16 tests run: 16 passed, 0 skipped")]),
        User("How do I pin something by hand, say a release build?"),
        Assistant("POST /v1/artifacts/{project}/{key}/pin with a token for that project pins it, and a DELETE on "
                  "the same /pin path unpins it. Pinned artifacts are skipped by the sweeper entirely."),
        User("Good. Now let's get it into a container for staging."),
        Assistant("Multi-stage Dockerfile: build in rust:1.79-slim, copy the binary into a small runtime image.",
                  [Write("Dockerfile", "FROM rust:1.79-slim AS build\nWORKDIR /src\nCOPY . .\n"
                         "RUN cargo build --release --locked\n\nFROM debian:bookworm-slim\n"
                         "COPY --from=build /src/target/release/quarry /usr/local/bin/quarry\n"
                         "ENTRYPOINT [\"quarry\"]\n"),
                   Bash("docker build -t quarry:dev .",
                        "error: failed to run custom build command for `openssl-sys v0.9.102`\n...\n  Could not "
                        "find directory of OpenSSL installation, and this `-sys` crate cannot\n  proceed without "
                        "this knowledge.", ok=False)]),
        Assistant("The build fails in openssl-sys. It comes in through rusoto_core's default native-tls feature "
                  "and reqwest's defaults. I could install libssl-dev in the build stage, but then the runtime "
                  "image needs libssl as well."),
        User("No OpenSSL anywhere. We use rustls across the board."),
        Assistant("Switched rusoto_core and reqwest to their rustls features with default-features = false. "
                  "`cargo tree -i openssl-sys` no longer finds the crate at all, the image builds, and since nothing "
                  "needs libssl any more the runtime stage is now gcr.io/distroless/cc-debian12.",
                  [Edit("Cargo.toml", "rusoto_core = \"0.48\"",
                        "rusoto_core = { version = \"0.48\", default-features = false, features = [\"rustls\"] }"),
                   Bash("cargo tree -i openssl-sys",
                        "error: package ID specification `openssl-sys` did not match any packages"),
                   Edit("Dockerfile", "FROM debian:bookworm-slim", "FROM gcr.io/distroless/cc-debian12"),
                   Bash("docker build -t quarry:dev .", " => exporting to image\n => => naming to "
                        "docker.io/library/quarry:dev")]),
        User("Kubernetes will want probes."),
        Assistant("Added two endpoints: /health/live just returns 200 as long as the process is up, and "
                  "/health/ready checks Postgres with a SELECT 1 and does a HeadBucket against quarry-blobs, "
                  "returning 503 if either fails.",
                  [Edit("src/routes.rs", "", ".route(\"/health/live\", get(live))\n"
                        "        .route(\"/health/ready\", get(ready))\n")]),
        User("Deploy it to staging. It's behind quarry-stg.tools.northwind.io."),
        Assistant("Pushed the image and restarted the deployment with `kubectl -n quarry rollout restart "
                  "deploy/quarry`. https://quarry-stg.tools.northwind.io/health/ready answers ok.",
                  [Bash("docker tag quarry:dev registry.northwind.io/quarry:0.3.0 && docker push "
                        "registry.northwind.io/quarry:0.3.0 && kubectl -n quarry set image deploy/quarry "
                        "quarry=registry.northwind.io/quarry:0.3.0 && kubectl -n quarry rollout restart "
                        "deploy/quarry && kubectl -n quarry rollout status deploy/quarry",
                        "0.3.0: digest: sha256:4be1c0… size: 1368\ndeployment.apps/quarry image updated\n"
                        "deployment.apps/quarry restarted\ndeployment \"quarry\" successfully rolled out"),
                   Bash("curl -s https://quarry-stg.tools.northwind.io/health/ready",
                        "{\"postgres\":\"ok\",\"bucket\":\"ok\"}")]),
        Assistant("", [Todo([("Expire old artifacts", "completed"), ("Pin/unpin endpoints", "completed"),
                             ("Container image and staging deploy", "completed"),
                             ("Tell the android team about quarry", "pending")])]),
    ]),
    ("q5-big-uploads", 27, [
        User("The android team started using quarry and they're getting 413s. Their release bundles are around "
             "600 MB."),
        Assistant("The staging logs show the android uploads being refused with 413 Payload Too Large. That's the "
                  "body limit on the upload route: anything over 256 MB is rejected.",
                  [Bash("kubectl -n quarry logs deploy/quarry --since=2h | grep -m3 413",
                        "2024-07-22T08:12:44Z  WARN tower_http::trace: response status=413 Payload Too Large "
                        "uri=/v1/artifacts/android/release/app-bundle.aab latency=1873ms\n"
                        "2024-07-22T08:31:02Z  WARN tower_http::trace: response status=413 Payload Too Large "
                        "uri=/v1/artifacts/android/release/app-bundle.aab latency=1911ms")]),
        User("Bump it to 1 GB."),
        Assistant("Raised the upload limit from 256 MB to 1 GB. One thing to watch: a 600 MB upload from a slow "
                  "runner can easily take longer than the 30 seconds our TimeoutLayer allows, so those would now "
                  "fail with a 408 instead.",
                  [Edit("src/routes.rs", "RequestBodyLimitLayer::new(256 * 1024 * 1024)",
                        "RequestBodyLimitLayer::new(1024 * 1024 * 1024)")]),
        User("Then give it 120 seconds. Across the board is fine, I don't want two different timeouts to think "
             "about."),
        Assistant("The request timeout is now 120 seconds for every route.",
                  [Edit("src/routes.rs", "TimeoutLayer::new(Duration::from_secs(30))",
                        "TimeoutLayer::new(Duration::from_secs(120))")]),
        User("While you're in storage.rs: rusoto has been unmaintained for ages and cargo audit flags it on every "
             "run. Move us to the official aws-sdk-s3."),
        Assistant("Swapping rusoto_s3 and rusoto_core for aws-config plus aws-sdk-s3. A nice side effect: the SDK "
                  "can stream a ByteStream straight from the temp file, so we no longer hold the whole body in "
                  "memory during PutObject.",
                  [Edit("Cargo.toml", "rusoto_core = { version = \"0.48\", default-features = false, features = "
                        "[\"rustls\"] }\nrusoto_s3 = { version = \"0.48\", default-features = false, features = "
                        "[\"rustls\"] }",
                        "aws-config = { version = \"1\", features = [\"behavior-version-latest\"] }\n"
                        "aws-sdk-s3 = \"1.65\""),
                   Bash("cargo build",
                        "error: package `aws-sdk-s3 v1.65.0` cannot be built because it requires rustc 1.81.0 or "
                        "newer, while the currently active rustc version is 1.79.0\nEither upgrade rustc or select "
                        "compatible dependency versions with\n`cargo update <name>@<current-ver> --precise "
                        "<compatible-ver>`", ok=False)]),
        Assistant("The build stops because aws-sdk-s3 1.65 requires rustc 1.81 or newer and we're pinned to 1.79. "
                  "I can either hold the SDK back to an older release or move the toolchain forward."),
        User("Don't hold the SDK back. Move the toolchain to 1.82."),
        Assistant("rust-toolchain.toml now says 1.82 and the Dockerfile's build stage uses rust:1.82-slim. The "
                  "build goes through, but the MinIO integration tests fail: the SDK defaults to virtual-hosted-style "
                  "addressing, so it tried to reach quarry-blobs.localhost:9000, which doesn't resolve. MinIO wants "
                  "path-style requests, so I set force_path_style(true) on the S3 config builder and the tests pass.",
                  [Edit("rust-toolchain.toml", "channel = \"1.79\"", "channel = \"1.82\""),
                   Edit("Dockerfile", "FROM rust:1.79-slim AS build", "FROM rust:1.82-slim AS build"),
                   Bash("cargo nextest run -E 'test(minio)'",
                        "        FAIL [   5.021s] quarry storage::tests::minio_roundtrip\n--- STDERR ---\n"
                        "DispatchFailure: dns error: failed to lookup address information: Name or service not "
                        "known (quarry-blobs.localhost:9000)", ok=False),
                   Edit("src/storage.rs", "let s3 = aws_sdk_s3::Client::new(&conf);",
                        "let s3 = aws_sdk_s3::Client::from_conf(\n        aws_sdk_s3::config::Builder::from(&conf)"
                        ".force_path_style(true).build());"),
                   Bash("cargo nextest run", "     Summary [   6.218s] 21 tests run: 21 passed, 0 skipped")]),
        Assistant("About the retry loop we wrote for rusoto: the SDK retries by itself, so the hand-rolled loop can "
                  "go. Its standard retry mode would give us 3 attempts, the same as before; should I keep that?"),
        User("Give it 5. The staging MinIO drops connections when the morning CI rush hits."),
        Assistant("Removed our retry helper and configured RetryConfig::standard().with_max_attempts(5), so S3 "
                  "calls now get up to 5 attempts instead of 3.",
                  [Edit("src/storage.rs", "retry(3, Duration::from_millis(200), || self.s3.put_object(req.clone()))"
                        ".await?;", "self.s3.put_object().bucket(&self.bucket).key(&path).body(body).send().await?;"),
                   Edit("src/storage.rs", "aws_config::defaults(BehaviorVersion::latest())",
                        "aws_config::defaults(BehaviorVersion::latest())\n"
                        "        .retry_config(RetryConfig::standard().with_max_attempts(5))"),
                   Bash("just check && cargo audit",
                        "     Summary [   6.301s] 21 tests run: 21 passed, 0 skipped\n"
                        "    Scanning Cargo.lock for vulnerabilities (312 crate dependencies)\n"
                        "Success No vulnerable packages found"),
                   Todo([("Raise upload limit for android bundles", "completed"),
                         ("Replace rusoto with aws-sdk-s3", "completed"), ("Bump Rust toolchain", "completed"),
                         ("Deploy 0.4.0 to staging", "pending")])]),
    ]),
    ("q6-axum-retention", 17, [
        User("Dependabot opened a PR for axum 0.8. Let's take it, but in its own PR."),
        Assistant("Bumping axum from 0.7 to 0.8 on a separate branch.",
                  [Bash("git switch -c deps/axum-0.8 && cargo add axum@0.8 && cargo nextest run",
                        "      Adding axum v0.8.1 to dependencies\n        FAIL [   0.004s] quarry routes::tests::"
                        "put_then_get\n--- STDERR ---\nthread 'routes::tests::put_then_get' panicked at "
                        "src/routes.rs:22:10:\nPath segments must not start with `:`. For capture groups, use "
                        "`{capture}`. If you meant to literally match a segment starting with a colon, call "
                        "`without_v07_checks` on the router.", ok=False)]),
        Assistant("axum 0.8 changed the path syntax: captures are written {project} and {*key} now instead of "
                  ":project and *key, and the router panics on the old form. I updated every route in "
                  "src/routes.rs. Our bearer-token extractor also doesn't need #[async_trait] any more, since "
                  "axum 0.8 uses native async traits, so I dropped that and the async-trait dependency.",
                  [Edit("src/routes.rs", ".route(\"/v1/artifacts/:project/*key\", put(upload).get(download))",
                        ".route(\"/v1/artifacts/{project}/{*key}\", put(upload).get(download))"),
                   Edit("src/auth.rs", "#[async_trait]\nimpl<S> FromRequestParts<S> for Writer",
                        "impl<S> FromRequestParts<S> for Writer"),
                   Bash("cargo nextest run && gh pr create --fill",
                        "     Summary [   6.144s] 21 tests run: 21 passed, 0 skipped\n"
                        "https://github.com/northwind/quarry/pull/48")]),
        User("The release managers complained: they need to pull old builds when they do hotfixes. Make it 45 "
             "days."),
        Assistant("Default retention is now 45 days for newly uploaded artifacts. Rows that already exist keep "
                  "the expires_at they were given at upload time. Do you want me to push those out as well?",
                  [Edit("src/gc.rs", "Duration::from_secs(14 * 24 * 3600)", "Duration::from_secs(45 * 24 * 3600)")]),
        User("Yes, extend the existing ones too."),
        Assistant("Ran the backfill on staging: unpinned artifacts now expire at created_at + 45 days. 18,204 rows "
                  "were updated.",
                  [Bash("psql \"$STAGING_DATABASE_URL\" -c \"UPDATE artifacts SET expires_at = created_at + "
                        "interval '45 days' WHERE NOT pinned\"", "UPDATE 18204")]),
        User("Also the sweeper waking up every hour is noisy in the logs and hammers MinIO with list calls in the "
             "middle of the workday. Once a night is enough, 03:15 UTC."),
        Assistant("Replaced the tokio interval with tokio-cron-scheduler: the sweep now runs daily at 03:15 UTC "
                  "with the cron expression 0 15 3 * * * (that crate's format has a seconds field first).",
                  [Edit("src/gc.rs", "let mut tick = tokio::time::interval(Duration::from_secs(3600));\n"
                        "        loop { tick.tick().await; sweep(&state).await; }",
                        "let sched = JobScheduler::new().await?;\n"
                        "        sched.add(Job::new_async(\"0 15 3 * * *\", move |_, _| sweep_job(state.clone()))?)"
                        ".await?;\n        sched.start().await?;"),
                   Bash("cargo nextest run gc", "     Summary [   0.312s] 4 tests run: 4 passed, 17 skipped")]),
        User("One more: infra moved staging. It's quarry.staging.northwind.dev now. Update the docs and the smoke "
             "test."),
        Assistant("Updated the README and the smoke-test step in .github/workflows/deploy.yml to "
                  "https://quarry.staging.northwind.dev, and the readiness check there passes.",
                  [Edit("README.md", "Staging: https://quarry-stg.tools.northwind.io",
                        "Staging: https://quarry.staging.northwind.dev"),
                   Edit(".github/workflows/deploy.yml",
                        "run: curl -fsS https://quarry-stg.tools.northwind.io/health/ready",
                        "run: curl -fsS https://quarry.staging.northwind.dev/health/ready"),
                   Bash("curl -fsS https://quarry.staging.northwind.dev/health/ready",
                        "{\"postgres\":\"ok\",\"bucket\":\"ok\"}")]),
        Assistant("", [Todo([("Upgrade to axum 0.8", "completed"), ("Longer retention for release builds",
                                                                    "completed"),
                             ("Nightly sweep instead of hourly", "completed"),
                             ("Point docs and smoke test at the new staging host", "completed")])]),
    ]),
    ("q7-metrics-pool", 6, [
        User("We have no visibility into how quarry is doing. Can we get Prometheus metrics?"),
        Assistant("I'd use the metrics crate with metrics-exporter-prometheus and serve /metrics on its own port, "
                  "9464, so it isn't reachable through the public ingress; only the Prometheus scraper inside the "
                  "cluster hits it. Counters for uploads, uploaded bytes, cache hits and misses, plus a histogram "
                  "of request durations.",
                  [Write("src/metrics.rs", "pub fn install() -> anyhow::Result<()> {\n    PrometheusBuilder::new()"
                         ".with_http_listener(([0, 0, 0, 0], 9464)).install()?;\n    Ok(())\n}\n"),
                   Bash("cargo run & sleep 5; curl -s localhost:9464/metrics | grep quarry_ | head -4",
                        "# TYPE quarry_uploads_total counter\nquarry_uploads_total{project=\"demo\"} 3\n"
                        "# TYPE quarry_cache_hits_total counter\nquarry_cache_hits_total{project=\"demo\"} 11")]),
        User("Staging keeps logging 'pool timed out while waiting for an open connection' during the morning "
             "rush. Any idea?"),
        Assistant("", [Read("src/routes.rs", "async fn upload(State(st): State<AppState>, writer: Writer, ...) {\n"
                            "    let mut tx = st.pool.begin().await?;\n    let (hash, size) = "
                            "st.storage.put_stream(body).await?;\n    insert_artifact(&mut tx, ...).await?;\n"
                            "    tx.commit().await?;\n}\n"),
                       Bash("kubectl -n quarry logs deploy/quarry --since=3h | grep -c 'pool timed out'", "57")]),
        Assistant("Found it: the upload handler begins its transaction before streaming the body to S3, so every "
                  "upload holds a database connection for the whole transfer. With 1 GB bundles and max_connections "
                  "= 10, a handful of slow runners exhaust the pool. I moved the transaction after the blob is "
                  "stored; it now only covers the insert.",
                  [Edit("src/routes.rs", "    let mut tx = st.pool.begin().await?;\n    let (hash, size) = "
                        "st.storage.put_stream(body).await?;",
                        "    let (hash, size) = st.storage.put_stream(body).await?;\n    let mut tx = "
                        "st.pool.begin().await?;"),
                   Bash("cargo nextest run", "     Summary [   6.402s] 23 tests run: 23 passed, 0 skipped")]),
        User("Raise the pool too, Postgres has plenty of headroom. 20."),
        Assistant("The pool is now max_connections = 20, up from 10.",
                  [Edit("src/main.rs", "PgPoolOptions::new().max_connections(10)",
                        "PgPoolOptions::new().max_connections(20)")]),
        User("And a process thing: keep pull requests small, one concern each. Don't bundle dependency bumps with "
             "feature work."),
        Assistant("Got it, small PRs with one concern each. I'll put the metrics and the pool fix in two separate "
                  "PRs.",
                  [Bash("gh pr create --title 'Prometheus metrics on :9464' --fill && git switch -c fix/pool-hold "
                        "&& gh pr create --title 'Do not hold a db connection during uploads' --fill",
                        "https://github.com/northwind/quarry/pull/53\nhttps://github.com/northwind/quarry/pull/54")]),
        User("Did last night's sweep look ok?"),
        Assistant("Mostly. It deleted 1,930 expired artifacts, but it also logged 'orphaned blob' warnings for 37 "
                  "objects that exist in the bucket with no row in Postgres. Probably uploads that failed between "
                  "the S3 write and the insert; I haven't dug in yet.",
                  [Bash("kubectl -n quarry logs deploy/quarry --since=10h | grep sweep | tail -n 2",
                        "2024-08-27T03:15:41Z  INFO quarry::gc: sweep finished deleted_artifacts=1930 "
                        "deleted_blobs=1712\n2024-08-27T03:15:41Z  WARN quarry::gc: orphaned blob count=37")]),
        User("OK, I'm done for today. What's left?"),
        Assistant("Next time: presigned download URLs first, the android team asked so big downloads go straight "
                  "to MinIO instead of through quarry. Then the Grafana dashboard for the new metrics and a look at "
                  "those orphaned blobs. Per-token rate limiting on uploads is still open but lower priority.",
                  [Todo([("Prometheus metrics endpoint", "completed"),
                         ("Stop holding a db connection during uploads", "completed"),
                         ("Presigned download URLs for large artifacts", "pending"),
                         ("Grafana dashboard for quarry metrics", "pending"),
                         ("Investigate orphaned blob warnings from the sweeper", "pending"),
                         ("Per-token rate limiting on uploads", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("Which port does quarry bind to these days?", ["7410"], ["0.0.0.0:3000", "port 3000"]),
    ("If I start the service locally, what port do I hit with curl?", ["7410"], ["0.0.0.0:3000", "port 3000"]),
    ("Why did we change the listen port?", ["Grafana"], []),
    ("Which env var lets me override the bind address?", ["QUARRY_BIND"], []),
    ("What's the biggest artifact a runner can push?", ["1 GB"], ["256 MB"]),
    ("Why did we raise the upload cap?", ["413", "600 MB"], []),
    ("Which crate talks to S3 now?", ["aws-sdk-s3"], ["rusoto"]),
    ("Why did we ditch rusoto?", ["unmaintained", "cargo audit"], []),
    ("How long do artifacts stick around before they're cleaned up?", ["45 days"], ["14 days"]),
    ("Did the artifacts that already existed get the longer expiry as well?", ["18,204", "extend the existing"],
     []),
    ("When does the cleanup job run?", ["03:15 UTC", "0 15 3 * * *"], ["every hour"]),
    ("Why isn't the sweeper hourly any more?", ["noisy", "list calls"], []),
    ("What cron expression schedules the sweep?", ["0 15 3 * * *"], []),
    ("What's the address of the staging environment?", ["quarry.staging.northwind.dev"],
     ["quarry-stg.tools.northwind.io"]),
    ("How often does the S3 client retry a failed call?", ["5 attempts", "with_max_attempts(5)"],
     ["3 times", "3 attempts"]),
    ("Why did we bump the retry count?", ["drops connections"], []),
    ("Which Rust toolchain are we pinned to?", ["1.82"], ["1.79"]),
    ("What forced the compiler upgrade?", ["requires rustc 1.81"], []),
    ("How long can a request run before it's cut off?", ["120 seconds"], ["30 seconds"]),
    ("Which axum version is the service on?", ["axum 0.8"], ["axum 0.7"]),
    ("What broke in the axum upgrade and what did we change?", ["{project}", "path syntax"], []),
    ("How many Postgres connections can the pool open?", ["max_connections = 20"], ["max_connections = 10"]),
    ("Why were requests timing out waiting for a database connection?", ["whole transfer", "holds a database"],
     []),
    ("What's the command to run the tests?", ["cargo nextest run"], []),
    ("Which clippy invocation do we gate on?", ["cargo clippy --all-targets -- -D warnings"], []),
    ("Where do the database migrations go?", ["migrations/"], []),
    ("The first migration run failed. What was missing?", ["DATABASE_URL"], []),
    ("CI couldn't compile the SQL macros. How did we get it green?", ["cargo sqlx prepare", "SQLX_OFFLINE"], []),
    ("I just edited a query. Anything I need to run before pushing?", ["cargo sqlx prepare"], []),
    ("What object key does a blob get in the bucket?", ["blobs/<first two hex chars>/<full blake3 hash>"], []),
    ("Which hash function identifies blobs?", ["blake3"], []),
    ("Why aren't blobs stored under the artifact's name?", ["same bytes"], []),
    ("How are the CI tokens stored in the database?", ["SHA-256"], []),
    ("Can the android runners overwrite the backend team's artifacts?", ["403", "scoped to a project"], []),
    ("How do I generate a token for a new CI runner?", ["token create --project"], []),
    ("How do I like errors handled in this codebase?", ["thiserror"], []),
    ("Am I allowed to call unwrap in the service?", ["no unwrap() outside tests", "expect with a message"], []),
    ("Should I use println for debugging output in the service?", ["tracing"], []),
    ("Why did the docker image fail to build the first time, and what did we change?",
     ["openssl-sys", "rustls"], []),
    ("What base image does the runtime stage use?", ["distroless/cc-debian12"], []),
    ("What are the liveness and readiness endpoints?", ["/health/ready", "/health/live"], []),
    ("What does the readiness check actually verify?", ["HeadBucket"], []),
    ("How can I keep a release build from being deleted?", ["/pin"], []),
    ("Where's the MinIO web console when running locally?", ["9001"], []),
    ("What's the bucket called?", ["quarry-blobs"], []),
    ("Why did the MinIO tests fail after moving to the new SDK?", ["force_path_style(true)", "virtual-hosted"],
     []),
    ("Where does Prometheus scrape quarry?", ["9464"], []),
    ("Why do the metrics have their own port?", ["public ingress"], []),
    ("How do I roll out a new build on staging?", ["kubectl -n quarry rollout restart deploy/quarry"], []),
    ("How do I want pull requests organised?", ["one concern each"], []),
    ("Which database does quarry keep its metadata in?", ["Postgres 16"], []),
    ("What should I pick up next?", ["presigned"], []),
    ("Anything we left unfinished last time?", ["Grafana dashboard", "rate limiting", "orphaned blob"], []),
    ("Did the nightly cleanup report anything odd?", ["orphaned blob"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": ["7410", "45 days", "aws-sdk-s3", ("03:15 UTC", "0 15 3 * * *"), "presigned"],
    "stale": ["port 3000", "0.0.0.0:3000", "256 MB", "rusoto", "14 days", "every hour",
              "quarry-stg.tools.northwind.io", "30 seconds"],
}
