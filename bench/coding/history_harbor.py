"""History C (held out): seven weeks of Claude Code sessions on "harbor", the Go back end of a marina's berth
bookings (chi router, pgx v5 and sqlc on Postgres 16, Docker, GitHub Actions, Fly.io).

Values change along the way: the HTTP port, the migration tool, the checkout hold's length and the reaper's
interval, the logging library, the tide sync's schedule, the staging URL, the connection pool size and the Go
version. Decisions are agreed in conversation in different words, commands fail and are fixed, the user corrects
the assistant and states preferences, and the last session leaves open work. It was written without looking at
the recall code, its lexicon or any benchmark output, so that it checks recall on a history nobody tuned against.
QUESTIONS ask about it the way a person would weeks later, in their own words; BRIEF says what the next session's
start must hold.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "harbor"

SESSIONS = [
    ("h1-scaffold", 53, [
        User("New project: harbor, the booking back end for the Saltwater marina. Berth reservations, holds while "
             "someone is paying, that sort of thing. Go 1.22, chi for routing, pgx v5 straight to Postgres 16. "
             "Module path github.com/saltwater-labs/harbor. Plain cmd/ and internal/ layout please, no web "
             "framework."),
        Assistant("I'll create the module with github.com/go-chi/chi/v5 and pgx, a single entry point in "
                  "cmd/harbor and packages under internal/ for config, the HTTP handlers and storage.",
                  [Bash("go mod init github.com/saltwater-labs/harbor && go get github.com/go-chi/chi/v5@latest "
                        "github.com/jackc/pgx/v5@latest",
                        "go: creating new go.mod: module github.com/saltwater-labs/harbor\n"
                        "go: added github.com/go-chi/chi/v5 v5.0.12\ngo: added github.com/jackc/pgx/v5 v5.5.5"),
                   Write("cmd/harbor/main.go",
                         "package main\n\nfunc main() {\n\tcfg := config.Load()\n\tpool := store.MustConnect(cfg)"
                         "\n\tsrv := httpapi.New(pool)\n\tlog.Fatal(http.ListenAndServe(cfg.Addr, srv))\n}\n"),
                   Write("internal/config/config.go",
                         "func Load() Config {\n\treturn Config{\n\t\tAddr: env(\"HARBOR_ADDR\", \":8080\"),\n"
                         "\t\tDatabaseURL: env(\"DATABASE_URL\", \"postgres://harbor:harbor@localhost:5432/harbor"
                         "?sslmode=disable\"),\n\t}\n}\n")]),
        User("Listen on port 8080 for now. Postgres goes in docker compose, and map it to 5434 on the host; I "
             "already run another Postgres on 5432 for other work."),
        Assistant("Added docker-compose.yml with a postgres:16 service published as 5434:5432, and started it.",
                  [Write("docker-compose.yml",
                         "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: harbor\n"
                         "      POSTGRES_PASSWORD: harbor\n    ports:\n      - \"5434:5432\"\n"),
                   Bash("docker compose up -d db", "[+] Running 2/2\n Network harbor_default  Created\n "
                                                   "Container harbor-db-1    Started")]),
        User("Logging with zap, JSON output. And a style rule: wrap errors with fmt.Errorf and %w. I don't want "
             "pkg/errors anywhere in this codebase."),
        Assistant("Added internal/logging with a zap production logger writing JSON to stdout. Errors get wrapped "
                  "as fmt.Errorf(\"load berth %d: %w\", id, err) so errors.Is and errors.As still work; no "
                  "pkg/errors.",
                  [Bash("go get go.uber.org/zap", "go: added go.uber.org/zap v1.27.0"),
                   Write("internal/logging/logging.go",
                         "func New() *zap.Logger {\n\tl, _ := zap.NewProduction()\n\treturn l\n}\n")]),
        User("What do we use for migrations?"),
        Assistant("golang-migrate is the usual pick: numbered up/down SQL files in db/migrations applied with the "
                  "migrate CLI. `make migrate-up` runs `migrate -path db/migrations -database \"$DATABASE_URL\" up`.",
                  [Write("db/migrations/000001_create_berths.up.sql",
                         "CREATE TABLE berths (\n  id bigserial PRIMARY KEY,\n  code text NOT NULL UNIQUE,\n"
                         "  pontoon text NOT NULL,\n  max_loa_ft numeric(5,1) NOT NULL,\n"
                         "  depth_m numeric(4,2) NOT NULL\n);\n"),
                   Edit("Makefile", "",
                        "migrate-up:\n\tmigrate -path db/migrations -database \"$(DATABASE_URL)\" up\n"),
                   Bash("DATABASE_URL=postgres://harbor:harbor@localhost:5434/harbor?sslmode=disable make "
                        "migrate-up", "1/u create_berths (14.2ms)")]),
        User("Start it up."),
        Assistant("", [Bash("go run ./cmd/harbor",
                            "panic: failed to connect to `host=localhost user=harbor database=harbor`: dial error "
                            "(dial tcp [::1]:5432: connect: connection refused)", ok=False)]),
        Assistant("It dialled 5432 because DATABASE_URL isn't set in this shell, so the default DSN from config "
                  "was used, and that still pointed at the standard port. I changed the default to 5434 and added "
                  "a .env.example; now it starts.",
                  [Edit("internal/config/config.go", "@localhost:5432/harbor", "@localhost:5434/harbor"),
                   Write(".env.example",
                         "HARBOR_ADDR=:8080\nDATABASE_URL=postgres://harbor:harbor@localhost:5434/harbor"
                         "?sslmode=disable\n"),
                   Bash("go run ./cmd/harbor", "{\"level\":\"info\",\"msg\":\"listening\",\"addr\":\":8080\"}")]),
        User("Good. One naming thing: the harbourmaster calls them berths. Use 'berth' everywhere in the code, "
             "not 'slip'."),
        Assistant("Understood, berth it is: the table, the types (Berth, BerthID) and the routes all say berth.",
                  [Todo([("Scaffold module, config and main", "completed"),
                         ("Postgres in docker compose on 5434", "completed"),
                         ("Migrations with golang-migrate", "completed"),
                         ("Berth availability endpoint", "pending"),
                         ("CI workflow", "pending")])]),
    ]),
    ("h2-availability", 46, [
        User("Availability next: GET /v1/berths/available with from, to and the boat's length overall. And I'd "
             "rather use sqlc than hand-write row scanning."),
        Assistant("Setting up sqlc with the pgx/v5 driver: hand-written SQL lives in db/queries/, the generated "
                  "Go code goes to internal/store/db, and the schema is read from db/migrations.",
                  [Write("sqlc.yaml",
                         "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: db/migrations\n"
                         "    queries: db/queries\n    gen:\n      go:\n        package: db\n"
                         "        out: internal/store/db\n        sql_package: pgx/v5\n"),
                   Write("db/queries/berths.sql",
                         "-- name: AvailableBerths :many\nSELECT b.* FROM berths b\n"
                         "WHERE b.length_ft >= sqlc.arg(loa_ft)\n  AND NOT EXISTS (SELECT 1 FROM bookings k "
                         "WHERE k.berth_id = b.id AND k.stay && daterange(sqlc.arg(from_date), sqlc.arg(to_date)));"
                         "\n"),
                   Bash("sqlc generate", "# package db\ndb/queries/berths.sql:4:9: column \"length_ft\" does not "
                                         "exist", ok=False)]),
        Assistant("My mistake: the first migration named that column max_loa_ft, not length_ft. Fixed the query "
                  "and ran `sqlc generate` again; the handler now calls q.AvailableBerths.",
                  [Edit("db/queries/berths.sql", "WHERE b.length_ft >= sqlc.arg(loa_ft)",
                        "WHERE b.max_loa_ft >= sqlc.arg(loa_ft)"),
                   Bash("sqlc generate && go build ./...", ""),
                   Bash("curl -s 'localhost:8080/v1/berths/available?from=2024-07-12&to=2024-07-14&loa_ft=38'",
                        "[{\"code\":\"C12\",\"pontoon\":\"C\",\"max_loa_ft\":42}]")]),
        User("Now checkout holds. When someone starts paying we hold the berth for 15 minutes; if the payment "
             "never arrives, it goes back on the market."),
        Assistant("Added a holds table with an expires_at column, POST /v1/holds which creates a hold that lasts "
                  "15 minutes, and a reaper goroutine that deletes expired holds every minute.",
                  [Write("db/migrations/000003_create_holds.up.sql",
                         "CREATE TABLE holds (\n  id bigserial PRIMARY KEY,\n  berth_id bigint NOT NULL "
                         "REFERENCES berths(id),\n  expires_at timestamptz NOT NULL\n);\n"),
                   Write("internal/booking/hold.go",
                         "const HoldTTL = 15 * time.Minute\n\nfunc (s *Service) Hold(ctx context.Context, "
                         "berth BerthID) (Hold, error) {\n\texpires := time.Now().Add(HoldTTL)\n\t...\n}\n\n"
                         "func (s *Service) RunReaper(ctx context.Context) {\n\tt := time.NewTicker(time.Minute)\n"
                         "\t...\n}\n")]),
        User("No, don't call time.Now() inside the booking package. Inject a clock so the tests can move time "
             "forward instead of sleeping."),
        Assistant("Right. There is now a booking.Clock interface with a single Now() method: production passes a "
                  "realClock, and the tests use a fakeClock with Advance(d). The expiry test advances the clock 16 "
                  "minutes and checks the hold is gone, no sleeping.",
                  [Edit("internal/booking/hold.go", "expires := time.Now().Add(HoldTTL)",
                        "expires := s.clock.Now().Add(HoldTTL)"),
                   Write("internal/booking/clock_test.go",
                         "type fakeClock struct{ now time.Time }\n\nfunc (c *fakeClock) Now() time.Time { return "
                         "c.now }\nfunc (c *fakeClock) Advance(d time.Duration) { c.now = c.now.Add(d) }\n"),
                   Bash("go test -race ./internal/booking/...",
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/booking\t0.412s")]),
        User("Cap the connection pool at 10 for now; the Postgres on the marina box is tiny."),
        Assistant("pgxpool reads pool settings from the connection string, so I added pool_max_conns=10 to the "
                  "DSN in .env.example and in the config default.",
                  [Edit(".env.example", "@localhost:5434/harbor?sslmode=disable",
                        "@localhost:5434/harbor?sslmode=disable&pool_max_conns=10")]),
        Assistant("", [Todo([("Berth availability endpoint", "completed"),
                             ("Checkout holds with expiry", "completed"),
                             ("Reaper for expired holds", "completed"),
                             ("CI workflow", "pending")])]),
    ]),
    ("h3-ci-goose", 39, [
        User("Set up CI on GitHub Actions: go vet, golangci-lint, and the tests with the race detector. Keep the "
             "whole run under five minutes, so cache the module downloads."),
        Assistant("Wrote .github/workflows/ci.yml. actions/setup-go@v5 with cache: true caches the module and "
                  "build caches keyed on go.sum; then vet, golangci-lint-action@v6 and `go test -race ./...`. "
                  "Running the linter locally first.",
                  [Write(".github/workflows/ci.yml",
                         "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4"
                         "\n      - uses: actions/setup-go@v5\n        with:\n          go-version: '1.22'\n"
                         "          cache: true\n      - run: go vet ./...\n"
                         "      - uses: golangci/golangci-lint-action@v6\n      - run: go test -race ./...\n"),
                   Bash("golangci-lint run ./...",
                        "internal/booking/hold.go:58:20: Error return value of `tx.Rollback` is not checked "
                        "(errcheck)\n\tdefer tx.Rollback(ctx)\n\t                 ^\n1 issues:\n* errcheck: 1",
                        ok=False)]),
        Assistant("errcheck flags the deferred rollback. After a successful Commit the rollback is a no-op that "
                  "returns ErrTxClosed, so ignoring it is deliberate; I made that explicit with "
                  "`defer func() { _ = tx.Rollback(ctx) }()`.",
                  [Edit("internal/booking/hold.go", "defer tx.Rollback(ctx)",
                        "defer func() { _ = tx.Rollback(ctx) }()"),
                   Bash("golangci-lint run ./...", "0 issues.")]),
        User("Separate thing. golang-migrate left the database marked dirty again this morning after a migration "
             "failed halfway, and I had to force the version by hand. I'm done with it. Let's switch to goose; it "
             "also lets us write migrations in Go, which we'll want for the berth-size backfill."),
        Assistant("Agreed, moving to goose. I merged each up/down pair into one goose file with `-- +goose Up` and "
                  "`-- +goose Down` sections, and replaced the make target: `make migrate` now runs "
                  "`goose -dir db/migrations postgres \"$DATABASE_URL\" up`, and `make migrate-down` rolls back "
                  "the most recent migration. goose keeps its state in the goose_db_version table, so I dropped "
                  "golang-migrate's schema_migrations table. sqlc still reads the same folder and ignores the goose "
                  "annotations.",
                  [Bash("go install github.com/pressly/goose/v3/cmd/goose@latest && ls db/migrations",
                        "00001_create_berths.sql\n00002_create_bookings.sql\n00003_create_holds.sql"),
                   Edit("Makefile",
                        "migrate-up:\n\tmigrate -path db/migrations -database \"$(DATABASE_URL)\" up\n",
                        "migrate:\n\tgoose -dir db/migrations postgres \"$(DATABASE_URL)\" up\n\n"
                        "migrate-down:\n\tgoose -dir db/migrations postgres \"$(DATABASE_URL)\" down\n"),
                   Bash("make migrate",
                        "2024/06/03 10:12:44 OK   00001_create_berths.sql (9.1ms)\n"
                        "2024/06/03 10:12:44 OK   00002_create_bookings.sql (6.4ms)\n"
                        "2024/06/03 10:12:44 OK   00003_create_holds.sql (5.0ms)\n"
                        "2024/06/03 10:12:44 goose: successfully migrated database to version: 3")]),
        User("I want integration tests that hit a real Postgres. Testcontainers?"),
        Assistant("Yes: testcontainers-go starts a postgres:16-alpine container per package, runs the goose "
                  "migrations against it and hands the tests a pool. They sit behind the `integration` build tag "
                  "so the quick run stays quick; run them with `go test -tags=integration ./internal/store/...`.",
                  [Write("internal/store/main_test.go",
                         "//go:build integration\n\npackage store\n\nfunc TestMain(m *testing.M) {\n"
                         "\tctr, _ := postgres.Run(ctx, \"postgres:16-alpine\")\n\t...\n}\n"),
                   Bash("go test -tags=integration ./internal/store/...",
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/store\t7.913s")]),
        User("Put those in CI as their own job, but only on pushes to main, not on every pull request."),
        Assistant("Added an `integration` job with `if: github.event_name == 'push' && github.ref == "
                  "'refs/heads/main'`, so pull requests only run the fast job.",
                  [Edit(".github/workflows/ci.yml", "      - run: go test -race ./...\n",
                        "      - run: go test -race ./...\n  integration:\n"
                        "    if: github.event_name == 'push' && github.ref == 'refs/heads/main'\n"
                        "    runs-on: ubuntu-latest\n    steps:\n"
                        "      - run: go test -tags=integration ./internal/store/...\n")]),
        Assistant("", [Todo([("CI workflow", "completed"), ("Switch migrations to goose", "completed"),
                             ("Integration tests with testcontainers", "completed"),
                             ("Berth-size backfill as a goose Go migration", "pending")])]),
    ]),
    ("h4-tides", 31, [
        User("The harbour authority publishes tide predictions. Pull them for our station so we can warn "
             "deep-draft boats about berths that dry out at low water. The endpoint is "
             "https://api.porttides.co.uk/v2/stations/0014/predictions. Once a night is plenty, say 02:30."),
        Assistant("Added internal/tides: a client for that endpoint, a tide_predictions table, and a scheduler "
                  "using robfig/cron v3.",
                  [Bash("go get github.com/robfig/cron/v3", "go: added github.com/robfig/cron/v3 v3.0.1"),
                   Write("internal/tides/sync.go",
                         "const predictionsURL = \"https://api.porttides.co.uk/v2/stations/0014/predictions\"\n\n"
                         "func Schedule(s *Syncer) *cron.Cron {\n\tc := cron.New()\n"
                         "\tc.AddFunc(\"30 2 * * * *\", s.Run)\n\treturn c\n}\n"),
                   Bash("go run ./cmd/harbor",
                        "panic: tide schedule: expected exactly 5 fields, found 6: [30 2 * * * *]", ok=False)]),
        Assistant("robfig/cron v3's default parser takes five fields and I had left a seconds field in. The "
                  "spec is now `30 2 * * *`, i.e. 02:30 every night.",
                  [Edit("internal/tides/sync.go", "c.AddFunc(\"30 2 * * * *\", s.Run)",
                        "c.AddFunc(\"30 2 * * *\", s.Run)"),
                   Bash("go run ./cmd/harbor",
                        "{\"level\":\"info\",\"msg\":\"tide sync scheduled\",\"spec\":\"30 2 * * *\","
                        "\"tz\":\"UTC\"}")]),
        User("UTC? The marina runs on local time. Make the schedule Europe/London."),
        Assistant("The scheduler is now created with cron.WithLocation(loc), where loc is "
                  "time.LoadLocation(\"Europe/London\"), so 02:30 means London time in summer and in winter.",
                  [Edit("internal/tides/sync.go", "c := cron.New()",
                        "loc, err := time.LoadLocation(\"Europe/London\")\n\tif err != nil {\n"
                        "\t\treturn nil, fmt.Errorf(\"tide schedule: %w\", err)\n\t}\n"
                        "\tc := cron.New(cron.WithLocation(loc))")]),
        User("How do I kick off a tide sync by hand without waiting for the schedule?"),
        Assistant("I added a subcommand for that: `go run ./cmd/harbor sync-tides` runs one sync and exits (in the "
                  "container it's `/harbor sync-tides`).",
                  [Bash("go run ./cmd/harbor sync-tides",
                        "{\"level\":\"info\",\"msg\":\"synced 412 predictions for station 0014\"}")]),
        User("Also: the harbourmaster says 15 minutes is too long on busy weekends. People start checkout and sit "
             "on a berth while they think about it. Cut the hold to 10 minutes."),
        Assistant("HoldTTL is now 10 * time.Minute, so holds last 10 minutes. One caveat: the reaper only sweeps "
                  "once a minute, so an expired hold can linger and block the berth for almost 11 minutes.",
                  [Edit("internal/booking/hold.go", "const HoldTTL = 15 * time.Minute",
                        "const HoldTTL = 10 * time.Minute")]),
        User("Then sweep twice a minute."),
        Assistant("Done: the reaper's ticker fires every 30 seconds now, and the test advances the fake clock past "
                  "10 minutes and 30 seconds.",
                  [Edit("internal/booking/hold.go", "t := time.NewTicker(time.Minute)",
                        "t := time.NewTicker(30 * time.Second)"),
                   Bash("go test -race ./internal/booking/... ./internal/tides/...",
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/booking\t0.388s\n"
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/tides\t0.207s")]),
        Assistant("", [Todo([("Tide predictions sync", "completed"), ("Shorter checkout hold", "completed"),
                             ("Warn deep-draft boats at low water in the availability response", "completed"),
                             ("Containerise and deploy to staging", "pending")])]),
    ]),
    ("h5-deploy", 22, [
        User("Let's containerise it and get a staging deploy going on Fly.io."),
        Assistant("A two-stage Dockerfile: build on golang:1.22-alpine, run on gcr.io/distroless/static-debian12 "
                  "as nonroot.",
                  [Write("Dockerfile",
                         "FROM golang:1.22-alpine AS build\nWORKDIR /src\nCOPY . .\n"
                         "RUN go build -o /harbor ./cmd/harbor\n\n"
                         "FROM gcr.io/distroless/static-debian12\nCOPY --from=build /harbor /harbor\n"
                         "USER nonroot\nEXPOSE 8080\nENTRYPOINT [\"/harbor\"]\n"),
                   Bash("docker build -t harbor . && docker run --rm harbor",
                        "exec /harbor: no such file or directory", ok=False)]),
        Assistant("The binary is there, but it was built with cgo enabled, so it is dynamically linked against "
                  "musl's loader, which the distroless static image doesn't have. Building with CGO_ENABLED=0 "
                  "gives a fully static binary.",
                  [Edit("Dockerfile", "RUN go build -o /harbor ./cmd/harbor",
                        "RUN CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w\" -o /harbor ./cmd/harbor"),
                   Bash("docker build -t harbor . && docker run --rm harbor",
                        "{\"level\":\"fatal\",\"msg\":\"tide schedule\",\"error\":\"unknown time zone "
                        "Europe/London\"}", ok=False)]),
        Assistant("Next problem: distroless static ships no zoneinfo, so LoadLocation can't find Europe/London. "
                  "Importing time/tzdata in main embeds the zone database in the binary (about 450 KB), which "
                  "works on any base image.",
                  [Edit("cmd/harbor/main.go", "import (\n", "import (\n\t_ \"time/tzdata\"\n"),
                   Bash("docker build -t harbor . && docker run --rm -e DATABASE_URL=$DATABASE_URL harbor",
                        "{\"level\":\"info\",\"msg\":\"listening\",\"addr\":\":8080\"}")]),
        User("While we're in there: the ops proxy on the marina box forwards to 9400, not 8080. Change the default "
             "port to 9400 and keep fly.toml's internal_port in sync with it."),
        Assistant("Changed: HARBOR_ADDR now defaults to :9400, the Dockerfile exposes 9400, .env.example says "
                  ":9400 and fly.toml has internal_port = 9400.",
                  [Edit("internal/config/config.go", "env(\"HARBOR_ADDR\", \":8080\")",
                        "env(\"HARBOR_ADDR\", \":9400\")"),
                   Edit("Dockerfile", "EXPOSE 8080", "EXPOSE 9400"),
                   Edit(".env.example", "HARBOR_ADDR=:8080", "HARBOR_ADDR=:9400"),
                   Bash("fly launch --no-deploy --name harbor-staging --region lhr",
                        "Created app 'harbor-staging' in organization 'saltwater-labs'\n"
                        "Wrote config file fly.toml\nHostname: harbor-staging.fly.dev"),
                   Edit("fly.toml", "internal_port = 8080", "internal_port = 9400")]),
        Assistant("The staging app exists; once deployed it will be reachable at https://harbor-staging.fly.dev."),
        User("Don't deploy from laptops, mine included. Deploys go through GitHub Actions only, on push to main."),
        Assistant("Added .github/workflows/deploy.yml: it runs after CI succeeds on main and calls "
                  "`flyctl deploy --remote-only` with the FLY_API_TOKEN repository secret, so the image is built "
                  "on Fly's builders and nothing is deployed from a developer machine.",
                  [Write(".github/workflows/deploy.yml",
                         "on:\n  workflow_run:\n    workflows: [ci]\n    branches: [main]\n    types: [completed]\n"
                         "jobs:\n  deploy:\n    if: github.event.workflow_run.conclusion == 'success'\n"
                         "    steps:\n      - uses: superfly/flyctl-actions/setup-flyctl@master\n"
                         "      - run: flyctl deploy --remote-only\n        env:\n"
                         "          FLY_API_TOKEN: ${{ secrets.FLY_API_TOKEN }}\n")]),
        User("One more: let's drop zap. log/slog is in the standard library and gives us the same JSON lines; "
             "that's one dependency less."),
        Assistant("Replaced zap with log/slog: internal/logging now returns slog.New(slog.NewJSONHandler(os.Stdout, "
                  "nil)), the call sites use slog's key-value pairs, and go mod tidy removed go.uber.org/zap.",
                  [Edit("internal/logging/logging.go",
                        "func New() *zap.Logger {\n\tl, _ := zap.NewProduction()\n\treturn l\n}\n",
                        "func New() *slog.Logger {\n\treturn slog.New(slog.NewJSONHandler(os.Stdout, nil))\n}\n"),
                   Bash("go mod tidy && go build ./... && grep -rl 'go.uber.org/zap' --include='*.go' . | wc -l",
                        "0")]),
        Assistant("", [Todo([("Dockerfile (static build, tzdata)", "completed"), ("Default port 9400", "completed"),
                             ("Fly.io staging app", "completed"), ("Deploy workflow on main", "completed"),
                             ("Replace zap with slog", "completed"),
                             ("Load test the checkout flow", "pending")])]),
    ]),
    ("h6-overlap-load", 13, [
        User("We had a double booking on staging yesterday: two boats got berth C12 for overlapping nights. How "
             "did that get through?"),
        Assistant("In internal/booking/reserve.go the overlap check and the insert are two separate statements, "
                  "so two concurrent requests can both see C12 as free and both insert. Two ways out: lock the "
                  "berth row with SELECT ... FOR UPDATE before checking, or add an exclusion constraint so Postgres "
                  "itself refuses overlapping stays for the same berth.",
                  [Read("internal/booking/reserve.go",
                        "func (s *Service) Reserve(ctx context.Context, r Request) (Booking, error) {\n"
                        "\tfree, err := s.q.BerthIsFree(ctx, ...)\n\t...\n\tif !free {\n\t\treturn Booking{}, "
                        "ErrTaken\n\t}\n\treturn s.q.InsertBooking(ctx, ...)\n}\n")]),
        User("Use the exclusion constraint. I'd rather the database enforce it than trust every code path to "
             "remember the lock."),
        Assistant("Writing the migration.",
                  [Write("db/migrations/00006_bookings_no_overlap.sql",
                         "-- +goose Up\nALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap\n"
                         "  EXCLUDE USING gist (berth_id WITH =, stay WITH &&);\n\n-- +goose Down\n"
                         "ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;\n"),
                   Bash("make migrate",
                        "2024/06/29 14:02:10 goose run: ERROR 00006_bookings_no_overlap.sql: failed to run SQL "
                        "migration: ERROR: data type bigint has no default operator class for access method "
                        "\"gist\" (SQLSTATE 42704)", ok=False)]),
        Assistant("A GiST index can't handle equality on a plain bigint without the btree_gist extension. I added "
                  "`CREATE EXTENSION IF NOT EXISTS btree_gist;` at the top of the migration. Reserve now maps the "
                  "exclusion_violation error (SQLSTATE 23P01) to ErrTaken, which the handler returns as 409 "
                  "Conflict.",
                  [Edit("db/migrations/00006_bookings_no_overlap.sql", "-- +goose Up\n",
                        "-- +goose Up\nCREATE EXTENSION IF NOT EXISTS btree_gist;\n"),
                   Bash("make migrate", "2024/06/29 14:04:51 OK   00006_bookings_no_overlap.sql (31.7ms)\n"
                                        "2024/06/29 14:04:51 goose: successfully migrated database to version: 6"),
                   Bash("go test -tags=integration ./internal/store/... -run TestConcurrentReserve",
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/store\t9.204s")]),
        User("Now let's load test checkout like we said."),
        Assistant("I ran `k6 run loadtest/checkout.js` against staging with 50 virtual users, and the pool runs "
                  "dry: with 50 concurrent checkouts, 10 connections aren't enough and requests time out waiting "
                  "for one.",
                  [Bash("k6 run --vus 50 --duration 2m loadtest/checkout.js",
                        "http_req_duration..............: avg=1.91s p(95)=2.84s\n"
                        "http_req_failed................: 6.20%\n"
                        "ERRO[0073] request failed: 500 failed to acquire connection: context deadline exceeded")]),
        User("The marina box was moved to a bigger Postgres instance last week, so we have room. Raise the pool "
             "to 25."),
        Assistant("Raised it: the DSN now carries pool_max_conns=25 (25 connections), in .env.example and in the "
                  "staging secret. p95 dropped to 210ms with no failures.",
                  [Edit(".env.example", "pool_max_conns=10", "pool_max_conns=25"),
                   Bash("fly secrets set DATABASE_URL=\"$STAGING_DATABASE_URL\" -a harbor-staging",
                        "Secrets are staged for the first deployment"),
                   Bash("k6 run --vus 50 --duration 2m loadtest/checkout.js",
                        "http_req_duration..............: avg=96ms p(95)=210ms\n"
                        "http_req_failed................: 0.00%")]),
        User("Another change: the tide authority revises its predictions several times a day now, so once a night "
             "isn't enough. Run the sync every six hours."),
        Assistant("Changed the tide schedule from `30 2 * * *` to `0 */6 * * *`: it now runs every six hours, at "
                  "00:00, 06:00, 12:00 and 18:00 London time.",
                  [Edit("internal/tides/sync.go", "c.AddFunc(\"30 2 * * *\", s.Run)",
                        "c.AddFunc(\"0 */6 * * *\", s.Run)")]),
        User("And we have a proper domain now. Staging lives at https://staging.harbor.saltwater.dev from today. "
             "Update the CORS allow-list and the README, and take the fly.dev address out of the docs."),
        Assistant("Added a certificate for staging.harbor.saltwater.dev on the Fly app, put "
                  "https://staging.harbor.saltwater.dev in the CORS allow-list in internal/httpapi/cors.go, and "
                  "the README now points at https://staging.harbor.saltwater.dev only.",
                  [Bash("fly certs add staging.harbor.saltwater.dev -a harbor-staging",
                        "Your certificate for staging.harbor.saltwater.dev is being issued."),
                   Edit("internal/httpapi/cors.go", "\"https://harbor-staging.fly.dev\"",
                        "\"https://staging.harbor.saltwater.dev\""),
                   Edit("README.md", "Staging: https://harbor-staging.fly.dev",
                        "Staging: https://staging.harbor.saltwater.dev")]),
        Assistant("", [Todo([("Prevent overlapping bookings", "completed"), ("Load test checkout", "completed"),
                             ("Tide sync every six hours", "completed"), ("Staging domain", "completed"),
                             ("Upgrade Go toolchain", "pending")])]),
    ]),
    ("h7-waitlist", 4, [
        User("Go 1.23 is out and golangci-lint supports it now. Bump us everywhere: go.mod, the Dockerfile and CI."),
        Assistant("Bumped the go directive to 1.23, the build stage to golang:1.23-alpine and setup-go to '1.23'. "
                  "Tests and lint pass.",
                  [Edit("go.mod", "go 1.22", "go 1.23"),
                   Edit("Dockerfile", "FROM golang:1.22-alpine AS build", "FROM golang:1.23-alpine AS build"),
                   Edit(".github/workflows/ci.yml", "go-version: '1.22'", "go-version: '1.23'"),
                   Bash("go mod tidy && go test -race ./... && golangci-lint run ./...",
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/booking\t0.401s\n"
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/httpapi\t0.288s\n"
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/tides\t0.193s\n0 issues.")]),
        User("Now the waitlist. When a berth frees up, because a hold expired or a booking was cancelled, the "
             "first boat on the waitlist for those dates should get an email."),
        Assistant("Plan: a waitlist table, POST /v1/waitlist to join it, and a notifier called from the reaper and "
                  "from the cancel path that picks the oldest matching entry.",
                  [Write("db/migrations/00007_create_waitlist.sql",
                         "-- +goose Up\nCREATE TABLE waitlist (\n  id bigserial PRIMARY KEY,\n"
                         "  berth_id bigint REFERENCES berths(id),\n  stay daterange NOT NULL,\n"
                         "  email text NOT NULL,\n  created_at timestamptz NOT NULL DEFAULT now()\n);\n\n"
                         "-- +goose Down\nDROP TABLE waitlist;\n"),
                   Bash("make migrate && sqlc generate && go test ./internal/httpapi/... -run Waitlist",
                        "2024/07/08 16:20:03 OK   00007_create_waitlist.sql (8.8ms)\n"
                        "2024/07/08 16:20:03 goose: successfully migrated database to version: 7\n"
                        "ok  \tgithub.com/saltwater-labs/harbor/internal/httpapi\t0.302s")]),
        User("Which email provider should we send through?"),
        Assistant("Either Postmark or Amazon SES would do. Postmark is simpler to set up and has good delivery for "
                  "transactional mail; SES is cheaper at volume but needs domain verification and leaving the "
                  "sandbox first."),
        User("Postmark, the marina already has an account. But let's stop here for today."),
        Assistant("Stopping here. Next time: wire a Postmark sender into the reaper and the cancel path so the "
                  "first waitlisted boat gets the email, and add rate limiting on POST /v1/holds (someone on "
                  "staging created 300 holds in a minute). The berth-size backfill as a goose Go migration is "
                  "still open too.",
                  [Todo([("Bump Go to 1.23", "completed"), ("Waitlist table and migration", "completed"),
                         ("POST /v1/waitlist endpoint", "completed"),
                         ("Send waitlist emails through Postmark when a berth frees up", "pending"),
                         ("Add per-IP rate limiting on POST /v1/holds", "pending"),
                         ("Berth-size backfill as a goose Go migration", "pending")])]),
        User("Also remind me next time: the FLY_API_TOKEN secret expires at the end of the month, we need to "
             "rotate it before then."),
        Assistant("Noted: rotate the FLY_API_TOKEN deploy secret before the end of the month.",
                  [Todo([("Send waitlist emails through Postmark when a berth frees up", "pending"),
                         ("Add per-IP rate limiting on POST /v1/holds", "pending"),
                         ("Berth-size backfill as a goose Go migration", "pending"),
                         ("Rotate the FLY_API_TOKEN secret before month end", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("What port does harbor listen on by default?", ["9400"], ["8080"]),
    ("Which port does the reverse proxy on the marina server send traffic to?", ["9400"], ["8080"]),
    ("What's internal_port set to in the Fly config?", ["internal_port = 9400"], ["internal_port = 8080"]),
    ("Which host port do I use to reach the local Postgres container?", ["5434"], []),
    ("Which tool runs our schema migrations these days?", ["goose"], ["golang-migrate"]),
    ("Why did we stop using golang-migrate?", ["dirty", "force the version by hand"], []),
    ("What's the command to apply pending database migrations?", ["goose -dir db/migrations postgres"],
     ["migrate -path db/migrations"]),
    ("How do I undo the most recent migration?", ["make migrate-down"], []),
    ("How long is a berth reserved for someone while they're paying?", ["10 minutes", "10 * time.Minute"],
     ["15 minutes", "15 * time.Minute"]),
    ("Why was the checkout hold made shorter?", ["busy weekends", "sit on a berth"], []),
    ("How often does the job that clears expired holds run?", ["30 seconds", "30 * time.Second"],
     ["once a minute", "every minute"]),
    ("Why does the hold sweeper run more often than it used to?", ["almost 11 minutes"], []),
    ("Which logging library are we on?", ["log/slog"], ["zap"]),
    ("Why did we replace the logger?", ["one dependency less", "standard library"], []),
    ("How should errors be wrapped in this codebase?", ["fmt.Errorf", "%w"], []),
    ("What word do we use in code for the place a boat is moored?", ["berth"], []),
    ("What's the module path of the Go project?", ["github.com/saltwater-labs/harbor"], []),
    ("Which HTTP router does the service use?", ["go-chi/chi"], []),
    ("Where does the tide data come from?", ["api.porttides.co.uk"], []),
    ("How often are tide predictions pulled now?", ["every six hours", "0 */6 * * *"], ["30 2 * * *"]),
    ("What's the cron spec for the tide job?", ["0 */6 * * *"], ["30 2 * * *"]),
    ("Which time zone does the tide schedule follow?", ["Europe/London"], []),
    ("Why did the tide scheduler panic the first time we started it?", ["expected exactly 5 fields",
                                                                        "seconds field"], []),
    ("Is there a way to refresh the tide data manually?", ["sync-tides"], []),
    ("What's the staging URL?", ["staging.harbor.saltwater.dev"], ["harbor-staging.fly.dev"]),
    ("Which origin is allowed by CORS for staging?", ["staging.harbor.saltwater.dev"], ["harbor-staging.fly.dev"]),
    ("How big is the database connection pool?", ["pool_max_conns=25", "25 connections"], ["pool_max_conns=10"]),
    ("Why did we give the pool more connections?", ["failed to acquire connection", "bigger Postgres"], []),
    ("Which Go version does the project build with?", ["1.23"], ["1.22"]),
    ("What image does the Docker build stage start from?", ["golang:1.23-alpine"], ["golang:1.22-alpine"]),
    ("What's the runtime base image of the container?", ["distroless/static-debian12"], []),
    ("Why did the container die with 'no such file or directory' at start?", ["CGO_ENABLED=0", "musl"], []),
    ("How did we fix the unknown time zone error inside the container?", ["time/tzdata"], []),
    ("How do we ship to staging?", ["flyctl deploy --remote-only", "GitHub Actions only"], []),
    ("Am I allowed to deploy from my own laptop?", ["Don't deploy from laptops", "GitHub Actions only"], []),
    ("What stops two bookings for the same berth from overlapping?", ["exclusion constraint",
                                                                      "EXCLUDE USING gist"], []),
    ("Why did we pick a database constraint over row locking for double bookings?",
     ["rather the database enforce it"], []),
    ("What extension did the no-overlap migration need?", ["btree_gist"], []),
    ("What status code does the API return when a stay overlaps an existing booking?", ["409"], []),
    ("How do we generate the Go code for our SQL queries?", ["sqlc generate"], []),
    ("What was wrong with the first availability query?", ["max_loa_ft"], []),
    ("How do the booking tests control the current time?", ["fakeClock", "booking.Clock"], []),
    ("What's the command for the integration tests that use a real Postgres?",
     ["go test -tags=integration ./internal/store/..."], []),
    ("When do the integration tests run in CI?", ["pushes to main", "refs/heads/main"], []),
    ("What did the linter complain about in the hold code, and what was the fix?",
     ["_ = tx.Rollback(ctx)", "errcheck"], []),
    ("What did we use to load test the checkout?", ["k6 run"], []),
    ("Which email service will send the waitlist notifications?", ["Postmark"], []),
    ("What's still left to do?", ["rate limiting on POST /v1/holds", "per-IP rate limiting",
                                  "Postmark sender"], []),
    ("Which secret do I need to rotate soon?", ["FLY_API_TOKEN"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": ["9400", "goose", ("10 minutes", "10 * time.Minute"), "Postmark",
              "rate limiting"],
    "stale": ["port 8080", ":8080", "golang-migrate", "15 minutes", "zap", "30 2 * * *", "harbor-staging.fly.dev",
              "pool_max_conns=10", "Go 1.22"],
}
