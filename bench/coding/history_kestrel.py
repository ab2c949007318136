"""History H (held out): nine weeks of Claude Code sessions on "kestrel", a Go backend with its infrastructure.

kestrel is the Go backend behind the Parcelnest parcel-locker app: an HTTP API for the iOS and Android clients and a
gRPC API for the hatch gateway (which talks to the lockers) and the courier-router service, Postgres 15 on Cloud SQL
through pgx and sqlc, goose migrations, door events on NATS JetStream for the notifier and analytics teams, deployed
to GKE with a Helm chart through Argo CD, Cloud SQL and friends in Terraform applied by Atlantis, Prometheus rules,
golangci-lint and Makefile targets. Over seven sessions values change in varied ways: the gRPC port (a bind clash,
fixed for good by the user), the logging library (logrus's cost found in one session, the move to log/slog done in
the next), the router (gorilla/mux replaced by chi), the pgx pool (10, "bump it to 25" after a load test, then down
to 20 after the HPA ceiling went from 4 to 8 and Cloud SQL ran out of slots), the reservation hold time, the prod
cluster and namespace (corrected by the user), the memory limit (after OOMKills), the Go and golangci-lint versions
(a govulncheck finding in one session, the bump in the next), the chart version (bumped by rule several times), the
error-rate page threshold, the hatch door-open deadline, the JetStream retention and subject names, the /v1 rate
limit (per IP to per account), the usage report CronJob schedule and a feature-flag default. Commands fail and are
fixed, the user corrects the assistant and states rules, and the last session ends with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers and the
file layout of history F were read), so it checks that recall generalises to a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "kestrel"

SESSIONS = [
    ("ks1-local-dev", 61, [
        User("Picking kestrel up again, the Go backend behind the Parcelnest locker app. I want local dev to work "
             "with one command: Postgres and NATS in docker compose, plus Makefile targets for run, test, lint, "
             "codegen and migrations."),
        Assistant("I'll read go.mod and the config loader first, then add a compose file (Postgres 15, NATS 2.10 "
                  "with JetStream, and a Prometheus that scrapes the local /metrics) and a Makefile. Migrations are "
                  "goose files in db/migrations and the query code is generated with sqlc.",
                  [Read("go.mod",
                        "module github.com/parcelnest/kestrel\n\ngo 1.22.0\n\ntoolchain go1.22.5\n\nrequire (\n"
                        "\tgithub.com/gorilla/mux v1.8.1\n\tgithub.com/jackc/pgx/v5 v5.6.0\n"
                        "\tgithub.com/nats-io/nats.go v1.36.0\n\tgithub.com/prometheus/client_golang v1.19.1\n"
                        "\tgithub.com/sirupsen/logrus v1.9.3\n\tgithub.com/stretchr/testify v1.9.0\n"
                        "\tgoogle.golang.org/grpc v1.64.0\n\tgoogle.golang.org/protobuf v1.34.2\n)\n"),
                   Read("internal/config/config.go",
                        "func Load() Config {\n\treturn Config{\n\t\tHTTPAddr:    env(\"HTTP_ADDR\", \":8080\"),\n"
                        "\t\tGRPCPort:    envInt(\"GRPC_PORT\", 9090),\n"
                        "\t\tDatabaseURL: env(\"DATABASE_URL\", \"postgres://kestrel:kestrel@localhost:5432/kestrel"
                        "?sslmode=disable&pool_max_conns=10\"),\n"
                        "\t\tNATSURL:     env(\"NATS_URL\", \"nats://localhost:4222\"),\n"
                        "\t\tHatchAddr:   env(\"HATCH_ADDR\", \"hatch-gateway.hatch.svc:443\"),\n\t}\n}\n"),
                   Write("docker-compose.yml",
                         "services:\n  postgres:\n    image: postgres:15\n    environment:\n"
                         "      POSTGRES_USER: kestrel\n      POSTGRES_PASSWORD: kestrel\n    ports:\n"
                         "      - \"5432:5432\"\n  nats:\n    image: nats:2.10\n    command: [\"-js\"]\n    ports:\n"
                         "      - \"4222:4222\"\n  prometheus:\n    image: prom/prometheus:v2.53.0\n    volumes:\n"
                         "      - ./dev/prometheus.yml:/etc/prometheus/prometheus.yml\n    ports:\n"
                         "      - \"9090:9090\"\n"),
                   Write("Makefile",
                         "GOLANGCI_VERSION ?= v1.59.1\n\nrun:\n\tgo run ./cmd/kestrel\n\ntest:\n"
                         "\tgo test -race ./...\n\nlint:\n\tgo run github.com/golangci/golangci-lint/cmd/"
                         "golangci-lint@$(GOLANGCI_VERSION) run ./...\n\ngenerate:\n\tsqlc generate\n\n"
                         "migrate-up:\n\tgoose -dir db/migrations postgres \"$(DATABASE_URL)\" up\n"),
                   Bash("docker compose up -d && make migrate-up",
                        "[+] Running 4/4\n ✔ Network kestrel_default         Created\n"
                        " ✔ Container kestrel-postgres-1    Started\n ✔ Container kestrel-nats-1        Started\n"
                        " ✔ Container kestrel-prometheus-1  Started\n"
                        "goose -dir db/migrations postgres \"postgres://kestrel:kestrel@localhost:5432/kestrel"
                        "?sslmode=disable\" up\n2024/06/03 10:12:41 OK   00001_lockers.sql (14.2ms)\n"
                        "2024/06/03 10:12:41 OK   00002_reservations.sql (9.8ms)\n"
                        "2024/06/03 10:12:41 goose: successfully migrated database to version: 2"),
                   Bash("make generate",
                        "sqlc generate\n# package db\nsql/queries/reservations.sql:14:8: column \"locker_id\" does "
                        "not exist\nmake: *** [Makefile:12: generate] Error 1", ok=False)]),
        Assistant("make generate failed because sqlc.yaml still read its schema from sql/schema, a hand-written "
                  "schema.sql from before the goose migrations that has no reservations.locker_id column. I pointed "
                  "schema at db/migrations (sqlc understands goose's -- +goose Up markers) and generation is clean; "
                  "the only change in the generated code is internal/db/reservations.sql.go.",
                  [Edit("sqlc.yaml", "    schema: \"sql/schema\"\n", "    schema: \"db/migrations\"\n"),
                   Bash("make generate && git status --short internal/db",
                        "sqlc generate\n M internal/db/reservations.sql.go")]),
        User("Fine. internal/db is sqlc output: never hand-edit anything in there, not even a typo. Change the "
             "query in sql/queries and run make generate."),
        Assistant("Understood: internal/db is generated only; query changes go into sql/queries/*.sql and then "
                  "make generate. I also excluded internal/db from golangci-lint so it stops reporting on generated "
                  "code.",
                  [Edit(".golangci.yml", "issues:\n  max-same-issues: 0\n",
                        "issues:\n  max-same-issues: 0\n  exclude-dirs:\n    - internal/db\n")]),
        User("make run"),
        Assistant("make run fails: the HTTP server comes up on :8080, then the gRPC listener dies with `listen tcp "
                  ":9090: bind: address already in use`. The gRPC server defaults to port 9090, and the Prometheus "
                  "container I just added publishes 9090 on the host. Quickest fix is to publish Prometheus on 9091 "
                  "locally, or to set GRPC_PORT in a .env file.",
                  [Bash("make run",
                        "go run ./cmd/kestrel\ntime=\"2024-06-03T10:15:02+02:00\" level=info msg=\"connected to "
                        "postgres\" pool_max=10\ntime=\"2024-06-03T10:15:02+02:00\" level=info msg=\"http "
                        "listening\" addr=\":8080\"\ntime=\"2024-06-03T10:15:02+02:00\" level=fatal msg=\"grpc "
                        "listen\" error=\"listen tcp :9090: bind: address already in use\"\nexit status 1\n"
                        "make: *** [Makefile:4: run] Error 1", ok=False)]),
        User("No per-laptop port juggling. 9090 is Prometheus' port everywhere, in the cluster too. Move gRPC to "
             "50051 for good: config default, chart, and the docs for the courier-router team, who call us over "
             "gRPC."),
        Assistant("gRPC listens on 50051 now: the default in internal/config, grpcPort in the chart's values.yaml "
                  "(the containerPort and the Service port both read it) and the grpcurl example in docs/grpc.md for "
                  "the courier-router team. The only 9090 left is Prometheus' own in the compose file. make run "
                  "starts both listeners.",
                  [Edit("internal/config/config.go", "\t\tGRPCPort:    envInt(\"GRPC_PORT\", 9090),\n",
                        "\t\tGRPCPort:    envInt(\"GRPC_PORT\", 50051),\n"),
                   Edit("deploy/helm/kestrel/values.yaml", "grpcPort: 9090\n", "grpcPort: 50051\n"),
                   Edit("docs/grpc.md", "grpcurl -plaintext localhost:9090 kestrel.v1.Lockers/GetLocker",
                        "grpcurl -plaintext localhost:50051 kestrel.v1.Lockers/GetLocker"),
                   Bash("grep -rn 9090 --include='*.go' --include='*.yaml' --include='*.md' .",
                        "./docker-compose.yml:21:      - \"9090:9090\""),
                   Bash("make run",
                        "go run ./cmd/kestrel\ntime=\"2024-06-03T10:21:40+02:00\" level=info msg=\"connected to "
                        "postgres\" pool_max=10\ntime=\"2024-06-03T10:21:40+02:00\" level=info msg=\"http "
                        "listening\" addr=\":8080\"\ntime=\"2024-06-03T10:21:40+02:00\" level=info msg=\"grpc "
                        "listening\" port=50051")]),
        User("Tests for POST /v1/reservations: happy path, locker already reserved, locker offline."),
        Assistant("Added internal/api/reservations_test.go with the three cases, mocking the store with testify's "
                  "mock package. All three pass.",
                  [Write("internal/api/reservations_test.go",
                         "func TestCreateReservationHappyPath(t *testing.T) {\n\tstore := new(mocks.Store)\n"
                         "\tstore.On(\"CreateReservation\", mock.Anything, mock.Anything).Return(res, nil)\n"
                         "\trec := do(t, newHandler(store), `{\"locker_id\":\"L-100\",\"size\":\"M\"}`)\n"
                         "\tassert.Equal(t, http.StatusCreated, rec.Code)\n}\n"),
                   Bash("go test ./internal/api/ -run TestCreateReservation",
                        "ok  \tgithub.com/parcelnest/kestrel/internal/api\t0.231s")]),
        User("Don't use testify mocks; there's a fake store in internal/store/fake for exactly this. And require, "
             "not assert: once the status code is wrong, the remaining checks are just noise. One table, not "
             "three functions."),
        Assistant("Rewrote it as one table-driven test against fake.NewStore(), with require throughout, and "
                  "removed the mocks package, which nothing else used. The happy-path case also checks expires_at "
                  "against reservations.HoldDuration, which is 30 * time.Minute.",
                  [Write("internal/api/reservations_test.go",
                         "func TestCreateReservation(t *testing.T) {\n\ttests := []struct {\n\t\tname   string\n"
                         "\t\tseed   func(*fake.Store)\n\t\tbody   string\n\t\twant   int\n\t}{\n"
                         "\t\t{\"happy path\", nil, `{\"locker_id\":\"L-100\",\"size\":\"M\"}`, http.StatusCreated},"
                         "\n\t\t{\"already reserved\", reserved(\"L-100\"), `{\"locker_id\":\"L-100\",\"size\":\"M\"}`"
                         ", http.StatusConflict},\n\t\t{\"locker offline\", offline(\"L-100\"), "
                         "`{\"locker_id\":\"L-100\",\"size\":\"M\"}`, http.StatusServiceUnavailable},\n\t}\n"
                         "\tfor _, tc := range tests {\n\t\tt.Run(tc.name, func(t *testing.T) {\n"
                         "\t\t\tstore := fake.NewStore()\n\t\t\tif tc.seed != nil {\n\t\t\t\ttc.seed(store)\n\t\t\t}\n"
                         "\t\t\trec := do(t, newHandler(store), tc.body)\n"
                         "\t\t\trequire.Equal(t, tc.want, rec.Code)\n\t\t})\n\t}\n}\n"),
                   Bash("go test ./internal/api/ -run TestCreateReservation -v",
                        "=== RUN   TestCreateReservation\n=== RUN   TestCreateReservation/happy_path\n"
                        "=== RUN   TestCreateReservation/already_reserved\n"
                        "=== RUN   TestCreateReservation/locker_offline\n--- PASS: TestCreateReservation (0.00s)\n"
                        "    --- PASS: TestCreateReservation/happy_path (0.00s)\n"
                        "    --- PASS: TestCreateReservation/already_reserved (0.00s)\n"
                        "    --- PASS: TestCreateReservation/locker_offline (0.00s)\nPASS\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/api\t0.198s")]),
        User("make lint before we stop. And don't ever commit or push for me; I review the diff and commit "
             "myself."),
        Assistant("Lint found two issues, both fixed: an unchecked conn.Close in internal/hatch/client.go "
                  "(errcheck) and an ineffectual assignment to err in internal/api/lockers.go (ineffassign). make "
                  "lint is clean now. Nothing is committed; all of it is in the working tree for you to review.",
                  [Bash("make lint",
                        "internal/hatch/client.go:88:17: Error return value of `conn.Close` is not checked "
                        "(errcheck)\n\tdefer conn.Close()\n\t               ^\ninternal/api/lockers.go:61:2: "
                        "ineffectual assignment to err (ineffassign)\n\tlockers, err := h.store.Nearby(ctx, q)\n"
                        "\t^\nmake: *** [Makefile:10: lint] Error 1", ok=False),
                   Edit("internal/hatch/client.go", "\tdefer conn.Close()\n",
                        "\tdefer func() { _ = conn.Close() }()\n"),
                   Edit("internal/api/lockers.go", "\tlockers, err := h.store.Nearby(ctx, q)\n",
                        "\tlockers, err := h.store.Nearby(ctx, q)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n"),
                   Bash("make lint", "0 issues.")]),
    ]),
    ("ks2-door-events", 53, [
        User("The mobile team wants a push notification when a courier's door opens. The hatch gateway already "
             "calls our gRPC ReportDoorEvent; publish every door event to NATS JetStream so the notifier service "
             "can pick it up. Subject: locker.door.opened."),
        Assistant("Publisher added in internal/events and wired into ReportDoorEvent. The first test run failed "
                  "with `nats: no response from stream`: a JetStream publish waits for an ack from a stream that "
                  "captures the subject, and there isn't one yet. I added jetstream.CreateOrUpdateStream at startup "
                  "in cmd/kestrel/main.go: stream LOCKER_EVENTS on locker.>, file storage, MaxAge 72 hours.",
                  [Todo([("Publish door events to JetStream", "in_progress"),
                         ("Stream for the door events", "pending"),
                         ("Metric for published events", "pending")]),
                   Write("internal/events/publisher.go",
                         "package events\n\ntype Publisher struct{ js jetstream.JetStream }\n\n"
                         "func (p *Publisher) DoorOpened(ctx context.Context, ev DoorOpened) error {\n"
                         "\tdata, err := json.Marshal(ev)\n\tif err != nil {\n"
                         "\t\treturn fmt.Errorf(\"marshal door event: %w\", err)\n\t}\n"
                         "\tif _, err := p.js.Publish(ctx, \"locker.door.opened\", data); err != nil {\n"
                         "\t\treturn fmt.Errorf(\"publish door event: %w\", err)\n\t}\n"
                         "\tdoorEventsPublished.Inc()\n\treturn nil\n}\n"),
                   Edit("internal/grpcserver/door.go", "\tif err := s.store.SaveDoorEvent(ctx, ev); err != nil {\n",
                        "\tif err := s.events.DoorOpened(ctx, events.FromProto(req)); err != nil {\n"
                        "\t\treturn nil, status.Errorf(codes.Unavailable, \"door event: %v\", err)\n\t}\n"
                        "\tif err := s.store.SaveDoorEvent(ctx, ev); err != nil {\n"),
                   Bash("go test ./internal/events/...",
                        "--- FAIL: TestDoorOpenedPublishes (0.01s)\n    publisher_test.go:34: publish door event: "
                        "nats: no response from stream\nFAIL\nFAIL\tgithub.com/parcelnest/kestrel/internal/events"
                        "\t0.318s", ok=False),
                   Edit("cmd/kestrel/main.go", "\tpub := events.NewPublisher(js)\n",
                        "\tif _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{\n"
                        "\t\tName: \"LOCKER_EVENTS\", Subjects: []string{\"locker.>\"},\n"
                        "\t\tStorage: jetstream.FileStorage, MaxAge: 72 * time.Hour,\n\t}); err != nil {\n"
                        "\t\treturn fmt.Errorf(\"create stream: %w\", err)\n\t}\n"
                        "\tpub := events.NewPublisher(js)\n")]),
        User("No. The app never creates or changes streams: during a rollout two versions would fight over the "
             "config. Streams are declared in the chart as nack JetStream resources and the app only publishes. "
             "In tests, create the stream in the test setup."),
        Assistant("Removed the CreateOrUpdateStream call. LOCKER_EVENTS is now a Stream resource in "
                  "deploy/helm/kestrel/templates/stream.yaml (subjects locker.>, file storage, 3 replicas, maxAge: "
                  "72h) that the nack controller reconciles, and the publisher test creates the same stream on its "
                  "embedded server. Tests pass.",
                  [Edit("cmd/kestrel/main.go",
                        "\tif _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{\n"
                        "\t\tName: \"LOCKER_EVENTS\", Subjects: []string{\"locker.>\"},\n"
                        "\t\tStorage: jetstream.FileStorage, MaxAge: 72 * time.Hour,\n\t}); err != nil {\n"
                        "\t\treturn fmt.Errorf(\"create stream: %w\", err)\n\t}\n", ""),
                   Write("deploy/helm/kestrel/templates/stream.yaml",
                         "apiVersion: jetstream.nats.io/v1beta2\nkind: Stream\nmetadata:\n  name: locker-events\n"
                         "spec:\n  name: LOCKER_EVENTS\n  subjects:\n    - \"locker.>\"\n  storage: file\n"
                         "  replicas: 3\n  maxAge: 72h\n"),
                   Bash("go test ./internal/events/...",
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t0.412s")]),
        User("ReportDoorEvent is oddly heavy under the hatch replay, roughly 40 microseconds and almost 100 "
             "allocations per event. Where does it go?"),
        Assistant("Profiled the benchmark. Most of the allocated bytes are JSON marshalling of the event (19%), and "
                  "the next biggest item is logrus: WithFields copies the field map into a new Entry on every call, "
                  "9.1% of allocated bytes, plus its text formatter further down. The NATS publish itself is small.",
                  [Bash("go test -run XXX -bench BenchmarkReportDoorEvent -benchmem -memprofile mem.out "
                        "./internal/grpcserver && go tool pprof -top -sample_index=alloc_space mem.out | head -9",
                        "BenchmarkReportDoorEvent-10    \t   31026\t     38811 ns/op\t    9412 B/op\t      97 "
                        "allocs/op\nShowing nodes accounting for 289.41MB, 91.20% of 317.33MB total\n"
                        "      flat  flat%   sum%        cum   cum%\n"
                        "   61.02MB 19.23% 19.23%    61.02MB 19.23%  encoding/json.(*encodeState).marshal\n"
                        "   28.87MB  9.10% 28.33%    28.87MB  9.10%  github.com/sirupsen/logrus.(*Entry).WithFields"
                        "\n   22.40MB  7.06% 35.39%    22.40MB  7.06%  github.com/sirupsen/logrus.(*TextFormatter)."
                        "Format\n   14.11MB  4.45% 39.84%    14.11MB  4.45%  github.com/nats-io/nats.go.(*Conn)."
                        "publish")]),
        User("logrus again. Its text format is also what Loki keeps failing to parse. We're replacing logrus with "
             "log/slog and the JSON handler, but not today, the notifier comes first. Put it on the list."),
        Assistant("On the list for next time: replace logrus with log/slog and the JSON handler, which takes care "
                  "of the allocations on this path and of the Loki parsing.",
                  [Todo([("Publish door events to JetStream", "completed"),
                         ("Stream for the door events", "completed"),
                         ("Metric for published events", "completed"),
                         ("Replace logrus with log/slog (JSON handler)", "pending")])]),
        User("Mobile also wants the distance in metres in /v1/lockers/nearby. Right now it's `distance` in "
             "kilometres as a float."),
        Assistant("Changed the field to distance_m, an integer in metres, and updated the handler test.",
                  [Edit("internal/api/lockers.go",
                        "\tDistance float64 `json:\"distance\"`\n",
                        "\tDistanceM int `json:\"distance_m\"`\n"),
                   Edit("internal/api/lockers.go",
                        "\tlockers, err := h.store.Nearby(ctx, q)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n",
                        "\tlockers, err := h.store.Nearby(ctx, q)\n\tif err != nil {\n"
                        "\t\tlog.WithError(err).Error(\"nearby lockers\")\n\t\treturn nil, err\n\t}\n"),
                   Bash("go test ./internal/api/...", "ok  \tgithub.com/parcelnest/kestrel/internal/api\t0.244s")]),
        User("No! Never rename or remove a field in /v1. Android 4.x builds stay installed for months and crash on "
             "a missing key. Keep distance exactly as it was and add distance_m next to it. Also, you log the "
             "error and then return it in the nearby query. Don't: wrap it with %w and some context and return "
             "it; only the top of the request logs."),
        Assistant("distance is back unchanged (kilometres, float) and distance_m is added beside it. I added a "
                  "golden-file test, testdata/nearby_v1.golden.json, that fails if any existing /v1 key disappears "
                  "or changes type. The nearby query now returns fmt.Errorf(\"nearby lockers: %w\", err) without "
                  "logging; the request middleware logs it once. Same fix in two other places in the new code.",
                  [Edit("internal/api/lockers.go", "\tDistanceM int `json:\"distance_m\"`\n",
                        "\tDistance  float64 `json:\"distance\"`\n\tDistanceM int     `json:\"distance_m\"`\n"),
                   Edit("internal/api/lockers.go",
                        "\t\tlog.WithError(err).Error(\"nearby lockers\")\n\t\treturn nil, err\n",
                        "\t\treturn nil, fmt.Errorf(\"nearby lockers: %w\", err)\n"),
                   Write("internal/api/testdata/nearby_v1.golden.json",
                         "{\"lockers\":[{\"id\":\"L-100\",\"name\":\"Hauptbahnhof Nord\",\"distance\":0.42,"
                         "\"distance_m\":420,\"free\":{\"S\":3,\"M\":1,\"L\":0}}]}\n"),
                   Bash("go test ./internal/api/... ./internal/events/...",
                        "ok  \tgithub.com/parcelnest/kestrel/internal/api\t0.262s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t0.405s")]),
        User("Ship it to staging. Argo CD follows deploy/helm/kestrel on main for staging; I've committed. What "
             "does the chart set right now?"),
        Assistant("Staging synced and is healthy. The chart as it stands: version 0.3.0, an HPA between "
                  "minReplicas: 2 and maxReplicas: 4 at 70% CPU, requests 250m CPU and 128Mi memory with a memory "
                  "limit of 256Mi and no CPU limit, poolMaxConns: 10 for pgx, and flags.batchDoorOpen off.",
                  [Read("deploy/helm/kestrel/values.yaml",
                        "image:\n  repository: europe-west3-docker.pkg.dev/pn-platform/kestrel/api\n  tag: \"\"\n"
                        "httpPort: 8080\ngrpcPort: 50051\ndatabase:\n  host: 10.40.0.3\n  poolMaxConns: 10\n"
                        "resources:\n  requests:\n    cpu: 250m\n    memory: 128Mi\n  limits:\n    memory: 256Mi\n"
                        "autoscaling:\n  enabled: true\n  minReplicas: 2\n  maxReplicas: 4\n"
                        "  targetCPUUtilizationPercentage: 70\nflags:\n  batchDoorOpen: false\n"),
                   Read("deploy/helm/kestrel/Chart.yaml",
                        "apiVersion: v2\nname: kestrel\ndescription: Parcelnest locker API\nversion: 0.3.0\n"
                        "appVersion: \"1.6.0\"\n"),
                   Bash("argocd app sync kestrel-staging && argocd app wait kestrel-staging --health",
                        "Name:               argocd/kestrel-staging\nProject:            parcelnest\n"
                        "Sync Status:        Synced to main (4be21c7)\nHealth Status:      Healthy\n\n"
                        "Operation:          Sync\nPhase:              Succeeded")]),
        User("You added templates/stream.yaml and didn't bump the chart. Always bump the version in Chart.yaml "
             "when anything under templates/ changes: the chart is also pushed to our Helm repo on every merge, "
             "that push refuses to overwrite an existing version, and the release then silently ships the old "
             "templates."),
        Assistant("Bumped Chart.yaml from version: 0.3.0 to version: 0.3.1. After your commit staging rendered the "
                  "Stream and the nack controller created LOCKER_EVENTS.",
                  [Edit("deploy/helm/kestrel/Chart.yaml", "version: 0.3.0\n", "version: 0.3.1\n"),
                   Bash("nats --context staging stream ls",
                        "╭──────────────────────────────────────────────────────────╮\n"
                        "│                          Streams                         │\n"
                        "├───────────────┬─────────────┬──────────┬──────┬─────────┤\n"
                        "│ Name          │ Description │ Messages │ Size │ Last    │\n"
                        "├───────────────┼─────────────┼──────────┼──────┼─────────┤\n"
                        "│ LOCKER_EVENTS │             │ 0        │ 0 B  │ never   │\n"
                        "╰───────────────┴─────────────┴──────────┴──────┴─────────╯")]),
    ]),
    ("ks3-slog-chi-pool", 45, [
        User("Today: logrus out, slog in, like we said. JSON handler, level from LOG_LEVEL, and the request id on "
             "every line."),
        Assistant("Starting with the logger package, then replacing the call sites.",
                  [Todo([("Replace logrus with log/slog", "in_progress"),
                         ("Request id on every log line", "pending"),
                         ("Remove logrus from go.mod", "pending")]),
                   Bash("grep -rl sirupsen/logrus --include='*.go' . | wc -l", "23"),
                   Write("internal/logging/logging.go",
                         "package logging\n\nfunc New(level string) *slog.Logger {\n\tvar lvl slog.Level\n"
                         "\tif err := lvl.UnmarshalText([]byte(level)); err != nil {\n\t\tlvl = slog.LevelInfo\n\t}\n"
                         "\th := slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: lvl})\n"
                         "\treturn slog.New(requestIDHandler{h})\n}\n"),
                   Bash("go build ./...",
                        "# github.com/parcelnest/kestrel/internal/hatch\ninternal/hatch/client.go:41:3: undefined: "
                        "logrus\ninternal/hatch/client.go:97:4: undefined: logrus", ok=False)]),
        Assistant("The build broke on two leftovers in internal/hatch that called the package-level logrus "
                  "functions instead of an injected logger; hatch.Client now takes a *slog.Logger. go mod tidy "
                  "dropped github.com/sirupsen/logrus from go.mod. Build and tests pass, and every line is JSON "
                  "with the request id attached by the handler wrapper.",
                  [Edit("internal/hatch/client.go",
                        "\t\tlogrus.WithField(\"locker\", lockerID).Warn(\"hatch unavailable, retrying\")\n",
                        "\t\tc.log.WarnContext(ctx, \"hatch unavailable, retrying\", \"locker\", lockerID)\n"),
                   Bash("go mod tidy && go build ./... && make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/api\t1.204s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t1.377s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t1.019s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/reservations\t1.088s"),
                   Bash("make run 2>&1 | head -2",
                        "{\"time\":\"2024-06-19T09:02:11.418+02:00\",\"level\":\"INFO\",\"msg\":\"connected to "
                        "postgres\",\"pool_max\":10}\n{\"time\":\"2024-06-19T09:02:11.420+02:00\",\"level\":\"INFO\","
                        "\"msg\":\"http listening\",\"addr\":\":8080\"}")]),
        User("Next, routing. I want the rate limit only on /v1, not on /healthz or /metrics, and extra middleware "
             "for /v1/admin. With gorilla/mux that's a mess of subrouters. Move to chi."),
        Assistant("Router rewritten on chi with httprate for the limit. First test run failed: TestOpenDoor got 400 "
                  "instead of 200.",
                  [Bash("go get github.com/go-chi/chi/v5@v5.1.0 github.com/go-chi/httprate@v0.14.1",
                        "go: added github.com/go-chi/chi/v5 v5.1.0\ngo: added github.com/go-chi/httprate v0.14.1"),
                   Edit("internal/api/router.go",
                        "\tr := mux.NewRouter()\n\tr.HandleFunc(\"/healthz\", h.health)\n"
                        "\tv1 := r.PathPrefix(\"/v1\").Subrouter()\n\tv1.Use(auth.Middleware(verifier))\n",
                        "\tr := chi.NewRouter()\n\tr.Use(middleware.RequestID, middleware.Recoverer)\n"
                        "\tr.Get(\"/healthz\", h.health)\n\tr.Handle(\"/metrics\", promhttp.Handler())\n"
                        "\tr.Route(\"/v1\", func(r chi.Router) {\n\t\tr.Use(auth.Middleware(verifier))\n"
                        "\t\tr.Use(httprate.LimitByIP(100, time.Minute))\n"
                        "\t\tr.Post(\"/reservations\", h.createReservation)\n"
                        "\t\tr.Get(\"/lockers/nearby\", h.nearbyLockers)\n"
                        "\t\tr.Post(\"/lockers/{lockerID}/door\", h.openDoor)\n"
                        "\t\tr.Route(\"/admin\", func(r chi.Router) {\n\t\t\tr.Use(auth.RequireRole(\"ops\"))\n"
                        "\t\t\tr.Get(\"/usage.csv\", h.usageCSV)\n\t\t})\n\t})\n"),
                   Bash("make test",
                        "--- FAIL: TestOpenDoor/courier_opens_own_locker (0.00s)\n    lockers_test.go:52:\n"
                        "        \tError Trace:\tlockers_test.go:52\n        \tError:      \tNot equal:\n"
                        "        \t            \texpected: 200\n        \t            \tactual  : 400\n"
                        "FAIL\tgithub.com/parcelnest/kestrel/internal/api\t0.311s", ok=False)]),
        Assistant("The handlers still read path parameters with mux.Vars(r)[\"id\"], which is empty under chi, so "
                  "openDoor answered 400 for a missing locker id, and the tests injected ids with mux.SetURLVars. "
                  "Six handlers now use chi.URLParam(r, \"lockerID\") and the tests go through the real router. "
                  "gorilla/mux is gone from go.mod. /v1 is limited to 100 requests per minute per IP by httprate; "
                  "/healthz and /metrics are not limited.",
                  [Edit("internal/api/lockers.go", "\tlockerID := mux.Vars(r)[\"id\"]\n",
                        "\tlockerID := chi.URLParam(r, \"lockerID\")\n"),
                   Edit("internal/api/lockers_test.go", "\treq = mux.SetURLVars(req, map[string]string{\"id\": id})\n",
                        ""),
                   Bash("go mod tidy && make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/api\t1.230s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t1.352s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t1.011s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/reservations\t1.095s")]),
        User("Load test before it goes to staging. The k6 script is in loadtest/."),
        Assistant("The run failed 9% of requests, all with `acquire conn: context deadline exceeded`: 200 virtual "
                  "users queue for the pgx pool, which is capped at pool_max_conns=10 (poolMaxConns: 10 in the "
                  "chart), until the 2s request context runs out. Postgres sat at about 30% CPU, so the database "
                  "itself is not the bottleneck.",
                  [Bash("k6 run --vus 200 --duration 2m loadtest/reservations.js",
                        "     ✗ status is 201\n      ↳  91% — ✓ 21873 / ✗ 2164\n\n"
                        "     http_req_duration..............: avg=412ms min=9ms med=188ms max=2.01s p(90)=1.2s "
                        "p(95)=1.8s\n     http_req_failed................: 9.00%  ✓ 2164       ✗ 21873"),
                   Bash("grep -m1 acquire /tmp/kestrel.log",
                        "{\"time\":\"2024-06-19T11:40:05.102+02:00\",\"level\":\"ERROR\",\"msg\":\"request failed\","
                        "\"path\":\"/v1/reservations\",\"request_id\":\"kst-7f3a91\",\"err\":\"create reservation: "
                        "acquire conn: context deadline exceeded\"}")]),
        User("bump it to 25 and run it again"),
        Assistant("Same run with the bigger pool: no failed requests, p95 240ms.",
                  [Edit("deploy/helm/kestrel/values.yaml", "  poolMaxConns: 10\n", "  poolMaxConns: 25\n"),
                   Edit("internal/config/config.go", "?sslmode=disable&pool_max_conns=10\"",
                        "?sslmode=disable&pool_max_conns=25\""),
                   Bash("k6 run --vus 200 --duration 2m loadtest/reservations.js",
                        "     ✓ status is 201\n\n     http_req_duration..............: avg=96ms min=8ms med=71ms "
                        "max=612ms p(90)=181ms p(95)=240ms\n     http_req_failed................: 0.00%  ✓ 0"
                        "          ✗ 26391")]),
        User("Different thing. Ops says couriers keep finding lockers blocked by reservations nobody picks up. "
             "From now on a reservation holds the locker for 20 minutes."),
        Assistant("HoldDuration is 20 minutes now. The reservation response's expires_at is computed from it, so "
                  "the app's countdown follows without a client release, and the expiry sweeper uses the same "
                  "constant. Tests pass.",
                  [Edit("internal/reservations/reservations.go", "const HoldDuration = 30 * time.Minute\n",
                        "const HoldDuration = 20 * time.Minute\n"),
                   Bash("make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/api\t1.219s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/reservations\t1.102s")]),
        User("lint and I'm done"),
        Assistant("make lint is clean. The slog move, the chi router, the pool of 25 and the 20 minute hold are "
                  "in the working tree, uncommitted.",
                  [Bash("make lint", "0 issues."),
                   Todo([("Replace logrus with log/slog", "completed"),
                         ("Request id on every log line", "completed"),
                         ("Remove logrus from go.mod", "completed"),
                         ("Move the router from gorilla/mux to chi", "completed"),
                         ("Load test reservations", "completed")])]),
    ]),
    ("ks4-prod-rollout", 36, [
        User("Production. Terraform for the Cloud SQL instance first, then an Argo CD Application for prod."),
        Assistant("Cloud SQL: POSTGRES_15 in europe-west3 on db-custom-2-7680, max_connections 200, automated "
                  "backups starting at 02:00, private IP only. The Argo CD Application kestrel-prod points at "
                  "deploy/helm/kestrel with values-prod.yaml. The plan is clean, 3 to add. Shall I apply it?",
                  [Todo([("Cloud SQL instance in Terraform", "in_progress"),
                         ("Argo CD Application for prod", "pending"),
                         ("First prod sync", "pending")]),
                   Write("infra/terraform/envs/prod/cloudsql.tf",
                         "resource \"google_sql_database_instance\" \"kestrel\" {\n  name             = "
                         "\"kestrel-pg\"\n  database_version = \"POSTGRES_15\"\n  region           = "
                         "\"europe-west3\"\n\n  settings {\n    tier = \"db-custom-2-7680\"\n\n"
                         "    database_flags {\n      name  = \"max_connections\"\n      value = \"200\"\n    }\n\n"
                         "    backup_configuration {\n      enabled    = true\n      start_time = \"02:00\"\n    }\n\n"
                         "    ip_configuration {\n      ipv4_enabled    = false\n"
                         "      private_network = data.google_compute_network.core.id\n    }\n  }\n}\n"),
                   Write("deploy/argocd/kestrel-prod.yaml",
                         "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: kestrel-prod\n"
                         "  namespace: argocd\nspec:\n  project: parcelnest\n  source:\n"
                         "    repoURL: https://github.com/parcelnest/kestrel\n    path: deploy/helm/kestrel\n"
                         "    targetRevision: main\n    helm:\n      valueFiles: [values.yaml, values-prod.yaml]\n"
                         "  destination:\n    name: prod-europe-west1\n    namespace: parcelnest-prod\n"
                         "  syncPolicy:\n    automated: {prune: true, selfHeal: true}\n"),
                   Bash("terraform -chdir=infra/terraform/envs/prod plan -out=tfplan",
                        "Terraform will perform the following actions:\n\n"
                        "  # google_sql_database.kestrel will be created\n"
                        "  # google_sql_database_instance.kestrel will be created\n"
                        "  # google_sql_user.kestrel will be created\n\n"
                        "Plan: 3 to add, 0 to change, 0 to destroy.\n\nSaved the plan to: tfplan")]),
        User("Two things wrong. The cluster isn't in europe-west1, we're in Frankfurt: the destination is "
             "kes-gke-prod-ew3, and the namespace is kestrel, not parcelnest-prod. And never run terraform apply "
             "from a laptop, not even with a saved plan. Plan locally, open the PR, Atlantis applies it after "
             "review."),
        Assistant("Fixed the destination to the kes-gke-prod-ew3 cluster and namespace: kestrel. I won't apply "
                  "Terraform from here; the local tfplan is deleted, and the plan output for the PR description is "
                  "in /tmp/cloudsql-plan.txt.",
                  [Edit("deploy/argocd/kestrel-prod.yaml",
                        "    name: prod-europe-west1\n    namespace: parcelnest-prod\n",
                        "    name: kes-gke-prod-ew3\n    namespace: kestrel\n"),
                   Bash("rm infra/terraform/envs/prod/tfplan && terraform -chdir=infra/terraform/envs/prod plan "
                        "-no-color > /tmp/cloudsql-plan.txt && tail -1 /tmp/cloudsql-plan.txt",
                        "Plan: 3 to add, 0 to change, 0 to destroy.")]),
        User("Finance wants a nightly usage report in their bucket. Make it a CronJob that runs the kestrel "
             "binary's report subcommand, 02:00 Berlin time."),
        Assistant("Added the kestrel-usage-report CronJob: schedule \"0 2 * * *\" in Europe/Berlin, "
                  "concurrencyPolicy Forbid, writing to gs://pn-finance-reports/kestrel. That's a new template, so "
                  "I bumped the chart from version: 0.3.1 to version: 0.4.0.",
                  [Write("deploy/helm/kestrel/templates/cronjob-usage-report.yaml",
                         "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: kestrel-usage-report\nspec:\n"
                         "  schedule: \"0 2 * * *\"\n  timeZone: Europe/Berlin\n  concurrencyPolicy: Forbid\n"
                         "  jobTemplate:\n    spec:\n      backoffLimit: 2\n      template:\n        spec:\n"
                         "          restartPolicy: Never\n          containers:\n            - name: report\n"
                         "              image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n"
                         "              args: [\"report\", \"usage\", \"--bucket\", "
                         "\"gs://pn-finance-reports/kestrel\"]\n"),
                   Edit("deploy/helm/kestrel/Chart.yaml", "version: 0.3.1\n", "version: 0.4.0\n")]),
        User("Atlantis applied the Cloud SQL PR and I've committed the rest. Sync prod."),
        Assistant("The first sync failed with `namespaces \"kestrel\" not found`: nothing creates the namespace on "
                  "the new cluster. I added CreateNamespace=true to the Application's syncOptions; the second sync "
                  "succeeded and prod is Healthy with 2 of 2 pods ready.",
                  [Bash("argocd app sync kestrel-prod",
                        "Name:               argocd/kestrel-prod\nSync Status:        OutOfSync from main\n"
                        "Operation:          Sync\nPhase:              Failed\nMessage:            one or more "
                        "objects failed to apply, reason: namespaces \"kestrel\" not found", ok=False),
                   Edit("deploy/argocd/kestrel-prod.yaml", "    automated: {prune: true, selfHeal: true}\n",
                        "    automated: {prune: true, selfHeal: true}\n    syncOptions:\n"
                        "      - CreateNamespace=true\n"),
                   Bash("kubectl --context kes-gke-prod-ew3 apply -f deploy/argocd/kestrel-prod.yaml && argocd app "
                        "sync kestrel-prod && argocd app wait kestrel-prod --health --timeout 300",
                        "application.argoproj.io/kestrel-prod configured\nName:               argocd/kestrel-prod\n"
                        "Sync Status:        Synced to main (9d0e5aa)\nHealth Status:      Healthy\n\n"
                        "Phase:              Succeeded")]),
        User("Three days later: kestrel pods keep restarting in prod since this morning."),
        Assistant("They're OOMKilled, exit code 137, against the 256Mi memory limit. Every restart follows a GET "
                  "/v1/admin/usage.csv for a whole month: usageCSV builds the entire CSV in a bytes.Buffer before "
                  "writing it, about 310MB for July, so one ops user clicking export takes the pod down.",
                  [Bash("kubectl -n kestrel get pods -l app.kubernetes.io/name=kestrel",
                        "NAME                       READY   STATUS    RESTARTS      AGE\n"
                        "kestrel-7c9f8d6b5d-2xkqp   1/1     Running   6 (14m ago)   3d\n"
                        "kestrel-7c9f8d6b5d-9wz4j   1/1     Running   7 (9m ago)    3d"),
                   Bash("kubectl -n kestrel describe pod kestrel-7c9f8d6b5d-9wz4j | grep -A3 'Last State'",
                        "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
                        "      Started:      08:58:12"),
                   Bash("kubectl -n kestrel logs kestrel-7c9f8d6b5d-9wz4j --previous | tail -1",
                        "{\"level\":\"INFO\",\"msg\":\"request started\",\"path\":\"/v1/admin/usage.csv\","
                        "\"query\":\"month=2024-07\",\"request_id\":\"kst-1c88e0\"}")]),
        User("Raise the limit to 512Mi, but fix the buffering too; I don't want to just throw memory at it. And "
             "set GOMEMLIMIT so the GC works harder before the kernel kills us."),
        Assistant("The memory limit is 512Mi and GOMEMLIMIT is 460MiB (about 90% of the limit), both set in "
                  "values.yaml; the deployment template already renders the env map, so no template changed and "
                  "the chart version stays. usage.csv now streams rows from the query through a csv.Writer straight "
                  "into the response and flushes every 500 rows; exporting July peaks at 14MB of heap instead of "
                  "about 310MB.",
                  [Edit("deploy/helm/kestrel/values.yaml", "  limits:\n    memory: 256Mi\n",
                        "  limits:\n    memory: 512Mi\nenv:\n  GOMEMLIMIT: 460MiB\n"),
                   Edit("internal/api/usage.go",
                        "\tvar buf bytes.Buffer\n\tw := csv.NewWriter(&buf)\n",
                        "\tw := csv.NewWriter(rw)\n\tdefer w.Flush()\n"),
                   Bash("go test -run TestUsageCSVStreams -v ./internal/api",
                        "=== RUN   TestUsageCSVStreams\n    usage_test.go:71: 412000 rows, peak heap 14.2MB\n"
                        "--- PASS: TestUsageCSVStreams (3.81s)\nPASS")]),
        User("CI's govulncheck step went red on main."),
        Assistant("Two standard-library vulnerabilities, both fixed in go1.22.7; we build with toolchain go1.22.5. "
                  "Changing the toolchain line to go1.22.7 would clear it.",
                  [Bash("govulncheck ./...",
                        "=== Symbol Results ===\n\nVulnerability #1: GO-2024-3106\n    Stack exhaustion in "
                        "Decoder.Decode in encoding/gob\n  Standard library\n    Found in: encoding/gob@go1.22.5\n"
                        "    Fixed in: encoding/gob@go1.22.7\n\nVulnerability #2: GO-2024-3107\n    Stack "
                        "exhaustion in Parse in go/build/constraint\n  Standard library\n    Found in: "
                        "go/build/constraint@go1.22.5\n    Fixed in: go/build/constraint@go1.22.7\n\n"
                        "Your code is affected by 2 vulnerabilities from the Go standard library.", ok=False)]),
        User("Don't chase 1.22 patch releases. We go to Go 1.23 next session, lint and Docker image included. "
             "Until then mark the govulncheck step allowed-to-fail, with a comment saying why."),
        Assistant("govulncheck is continue-on-error in CI with a comment pointing at the Go 1.23 upgrade, and the "
                  "upgrade is on the list for next session.",
                  [Edit(".github/workflows/ci.yml", "      - name: govulncheck\n",
                        "      - name: govulncheck\n        # stdlib findings fixed in Go 1.23; remove with the "
                        "upgrade\n        continue-on-error: true\n"),
                   Todo([("Cloud SQL instance in Terraform", "completed"),
                         ("Argo CD Application for prod", "completed"),
                         ("First prod sync", "completed"),
                         ("Stream usage.csv instead of buffering it", "completed"),
                         ("Upgrade to Go 1.23 (go.mod, Dockerfile, CI, golangci-lint)", "pending"),
                         ("Remove continue-on-error from govulncheck", "pending")])]),
    ]),
    ("ks5-go123-scaling", 25, [
        User("Go 1.23 today, as planned: go.mod, Dockerfile, CI."),
        Assistant("go.mod, the Dockerfile and CI are on 1.23.2 and the tests pass, but make lint broke: "
                  "golangci-lint v1.59.1 was built with Go 1.22 and refuses a module that targets 1.23. I bumped "
                  "it to v1.61.0 in the Makefile and CI. That version warns that exportloopref is deprecated, so I "
                  "replaced it with copyloopvar in .golangci.yml, which flagged four `tc := tc` copies that Go "
                  "1.22+ loop semantics make pointless; removed. Lint is clean, govulncheck finds nothing and is "
                  "blocking again.",
                  [Edit("go.mod", "go 1.22.0\n\ntoolchain go1.22.5\n", "go 1.23.2\n"),
                   Edit("Dockerfile", "FROM golang:1.22.5-bookworm AS build\n",
                        "FROM golang:1.23.2-bookworm AS build\n"),
                   Edit(".github/workflows/ci.yml", "          go-version: '1.22.5'\n",
                        "          go-version: '1.23.2'\n"),
                   Bash("go mod tidy && make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/api\t1.187s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t1.301s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t0.994s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/reservations\t1.071s"),
                   Bash("make lint",
                        "Error: can't load config: the Go language version (go1.22) used to build golangci-lint is "
                        "lower than the targeted Go version (1.23.2)\nFailed executing command with error: can't "
                        "load config: the Go language version (go1.22) used to build golangci-lint is lower than "
                        "the targeted Go version (1.23.2)\nmake: *** [Makefile:10: lint] Error 3", ok=False),
                   Edit("Makefile", "GOLANGCI_VERSION ?= v1.59.1\n", "GOLANGCI_VERSION ?= v1.61.0\n"),
                   Edit(".github/workflows/ci.yml", "          version: v1.59.1\n", "          version: v1.61.0\n"),
                   Bash("make lint",
                        "WARN The linter 'exportloopref' is deprecated (since v1.60.2) due to: Since Go1.22 "
                        "(loopvar) this linter is no longer relevant. Replaced by copyloopvar.\n0 issues."),
                   Edit(".golangci.yml", "    - exportloopref\n", "    - copyloopvar\n"),
                   Bash("make lint",
                        "internal/api/reservations_test.go:31:3: The copy of the 'for' variable \"tc\" can be "
                        "deleted (Go 1.22+) (copyloopvar)\n\t\ttc := tc\n\t\t^\n(3 more in internal/api, "
                        "internal/hatch)\nmake: *** [Makefile:10: lint] Error 1", ok=False),
                   Bash("make lint && govulncheck ./...", "0 issues.\nNo vulnerabilities found."),
                   Edit(".github/workflows/ci.yml",
                        "        # stdlib findings fixed in Go 1.23; remove with the upgrade\n"
                        "        continue-on-error: true\n", "")]),
        User("Monday morning peak again: the HPA sat at its max for over an hour with CPU at 160%. Raise the "
             "ceiling to 8."),
        Assistant("Done in values.yaml, the minimum stays at 2. One thing before it ships: at 8 pods with "
                  "poolMaxConns 25 that's 200 pool connections, exactly Cloud SQL's max_connections of 200, and the "
                  "usage-report job and migrations come on top. Should I lower the pool at the same time?",
                  [Edit("deploy/helm/kestrel/values.yaml", "  maxReplicas: 4\n", "  maxReplicas: 8\n")]),
        User("Ship it, we rarely go past 6. We'll see."),
        Assistant("Left as is: maxReplicas: 8 with the pool unchanged. It's in the working tree for you to commit; "
                  "Argo picks it up from main."),
        User("Well. Paged at 09:40 for reservation errors. The log says: FATAL: remaining connection slots are "
             "reserved for non-replication superuser connections (SQLSTATE 53300)"),
        Assistant("That's the collision: the HPA went to 8 pods, 8 × 25 = 200 pool connections plus the "
                  "usage-report job and Cloud SQL's own, against max_connections 200 with 3 slots reserved for "
                  "superusers. pg_stat_activity shows 197 connections. Either max_connections on Cloud SQL goes up "
                  "(a restart, and the tier needs the memory for it) or the pool per pod comes down.",
                  [Bash("kubectl -n kestrel get hpa kestrel",
                        "NAME      REFERENCE            TARGETS       MINPODS   MAXPODS   REPLICAS   AGE\n"
                        "kestrel   Deployment/kestrel   cpu: 92%/70%   2         8         8          25d"),
                   Bash("psql \"$PROD_RO_URL\" -Atc 'select count(*) from pg_stat_activity'", "197")]),
        User("Don't touch max_connections on Cloud SQL, the tier doesn't have the memory for more. Lower the pool "
             "to 20: that's 160 at full scale and leaves room for the job and migrations."),
        Assistant("Pool is 20 per pod: poolMaxConns in values.yaml and pool_max_conns=20 in the local default DSN. "
                  "After your commit I synced prod; at 8 pods Cloud SQL now shows 151 connections and the "
                  "reservation errors stopped.",
                  [Edit("deploy/helm/kestrel/values.yaml", "  poolMaxConns: 25\n", "  poolMaxConns: 20\n"),
                   Edit("internal/config/config.go", "?sslmode=disable&pool_max_conns=25\"",
                        "?sslmode=disable&pool_max_conns=20\""),
                   Bash("argocd app sync kestrel-prod && argocd app wait kestrel-prod --health",
                        "Sync Status:        Synced to main (e31f07b)\nHealth Status:      Healthy"),
                   Bash("psql \"$PROD_RO_URL\" -Atc 'select count(*) from pg_stat_activity'", "151")]),
        User("While we're in Terraform: add a read replica of kestrel-pg; the reporting queries should move off "
             "the primary at some point."),
        Assistant("Added kestrel-pg-replica, but the plan can't run: the state is locked by an Atlantis apply "
                  "started about 40 minutes ago. If it's stale I can run terraform force-unlock 1723540210481377.",
                  [Write("infra/terraform/envs/prod/cloudsql_replica.tf",
                         "resource \"google_sql_database_instance\" \"kestrel_replica\" {\n  name                 = "
                         "\"kestrel-pg-replica\"\n  master_instance_name = "
                         "google_sql_database_instance.kestrel.name\n  database_version     = \"POSTGRES_15\"\n"
                         "  region               = \"europe-west3\"\n\n  settings {\n"
                         "    tier = \"db-custom-2-7680\"\n  }\n}\n"),
                   Bash("terraform -chdir=infra/terraform/envs/prod plan",
                        "Acquiring state lock. This may take a few moments...\n\nError: Error acquiring the state "
                        "lock\n\nError message: writing \"gs://pn-tfstate/kestrel/prod/default.tflock\" failed: "
                        "googleapi: Error 412: At least one of the pre-conditions you specified did not hold., "
                        "conditionNotMet\nLock Info:\n  ID:        1723540210481377\n  Path:      "
                        "gs://pn-tfstate/kestrel/prod/default.tflock\n  Operation: OperationTypeApply\n"
                        "  Who:       atlantis@atlantis-0\n  Version:   1.9.3", ok=False)]),
        User("Never force-unlock. Ever. That's Marta's network PR applying through Atlantis, and a force-unlock in "
             "the middle of an apply corrupts the state. If a lock ever looks stale, ask in #infra."),
        Assistant("Understood, no force-unlock, and #infra for locks that look stale. I waited for the Atlantis "
                  "apply to finish and re-ran the plan: 1 to add, the kestrel-pg-replica read replica in "
                  "europe-west3. The PR is yours to open; nothing is applied.",
                  [Bash("terraform -chdir=infra/terraform/envs/prod plan",
                        "  # google_sql_database_instance.kestrel_replica will be created\n\n"
                        "Plan: 1 to add, 0 to change, 0 to destroy.")]),
    ]),
    ("ks6-alerts-hatch-nats", 14, [
        User("KestrelHighErrorRate woke me three nights this week. Each time it was a short 1-2% blip that "
             "cleared on its own. Show me the rule and what the blips were."),
        Assistant("The rule pages when more than 1% of requests return 5xx for 5 minutes. All three pages were "
                  "openDoor 504s: calls to the hatch gateway that ran out of time.",
                  [Read("deploy/monitoring/kestrel-rules.yaml",
                        "groups:\n  - name: kestrel\n    rules:\n      - alert: KestrelHighErrorRate\n"
                        "        expr: |\n          sum(rate(http_requests_total{job=\"kestrel\",code=~\"5..\"}[5m]))"
                        "\n            / sum(rate(http_requests_total{job=\"kestrel\"}[5m])) > 0.01\n"
                        "        for: 5m\n        labels:\n          severity: page\n"),
                   Bash("promtool query range --start=-7d --step=5m http://prometheus.monitoring:9090 "
                        "'sum by (route) (rate(http_requests_total{job=\"kestrel\",code=~\"5..\"}[5m])) > 0'",
                        "{route=\"/v1/lockers/{lockerID}/door\"} =>\n0.013 @[03:10]\n0.017 @[02:45]\n"
                        "0.015 @[04:05]")]),
        User("Page only above 2% for 10 minutes. Anything smaller goes to #kestrel-alerts as a warning, not a "
             "page. Then find out why hatch times out."),
        Assistant("The page now needs more than 2% for 10 minutes, and a new KestrelElevatedErrorRate warning at "
                  "0.5% for 15 minutes goes to #kestrel-alerts. The rules live in deploy/monitoring, outside the "
                  "chart, so no chart bump.\n\nOn hatch: the door-open deadline is 800ms, but the gateway's own p99 "
                  "is 2.1s for the lockers on LTE (about a third of the fleet; the fibre ones are at 0.35s), so "
                  "4.2% of OpenDoor calls end in DeadlineExceeded and we answer 504. I'd raise the deadline to 2.5s "
                  "and add one retry with backoff.",
                  [Edit("deploy/monitoring/kestrel-rules.yaml",
                        "> 0.01\n        for: 5m\n        labels:\n          severity: page\n",
                        "> 0.02\n        for: 10m\n        labels:\n          severity: page\n"
                        "      - alert: KestrelElevatedErrorRate\n        expr: |\n"
                        "          sum(rate(http_requests_total{job=\"kestrel\",code=~\"5..\"}[5m]))\n"
                        "            / sum(rate(http_requests_total{job=\"kestrel\"}[5m])) > 0.005\n"
                        "        for: 15m\n        labels:\n          severity: warning\n"
                        "          channel: kestrel-alerts\n"),
                   Read("internal/hatch/client.go",
                        "const openDoorTimeout = 800 * time.Millisecond\n\n"
                        "func (c *Client) OpenDoor(ctx context.Context, lockerID string, compartment int) error {\n"
                        "\tctx, cancel := context.WithTimeout(ctx, openDoorTimeout)\n\tdefer cancel()\n"
                        "\t_, err := c.rpc.OpenDoor(ctx, &hatchv1.OpenDoorRequest{LockerId: lockerID, "
                        "Compartment: int32(compartment)})\n"),
                   Bash("promtool query instant http://prometheus.monitoring:9090 'histogram_quantile(0.99, sum by "
                        "(le, uplink) (rate(hatch_rpc_duration_seconds_bucket{method=\"OpenDoor\"}[1d])))'",
                        "{uplink=\"lte\"} => 2.1\n{uplink=\"fibre\"} => 0.35"),
                   Bash("kubectl -n kestrel logs deploy/kestrel --since=24h | grep -c 'code = DeadlineExceeded'",
                        "1184")]),
        User("3 seconds. And no retries on door opens, ever: if the first command reached the locker and only the "
             "response got lost, a retry pops the door a second time, and for a courier that's an open "
             "compartment next to someone else's parcel."),
        Assistant("openDoorTimeout is 3 seconds now. I also found a gRPC service-config retryPolicy in "
                  "internal/hatch/dial.go that covered the whole hatch.v1.Hatch service, OpenDoor included, with "
                  "maxAttempts 3 on UNAVAILABLE. OpenDoor is out of it; GetLockerStatus keeps its retries. A new "
                  "test fails if OpenDoor ever appears in the retry config.",
                  [Edit("internal/hatch/client.go", "const openDoorTimeout = 800 * time.Millisecond\n",
                        "const openDoorTimeout = 3 * time.Second\n"),
                   Edit("internal/hatch/dial.go",
                        "\"name\": [{\"service\": \"hatch.v1.Hatch\"}],",
                        "\"name\": [{\"service\": \"hatch.v1.Hatch\", \"method\": \"GetLockerStatus\"}],"),
                   Bash("go test ./internal/hatch/ -run 'TestOpenDoor|TestNoRetryOnOpenDoor' -v",
                        "--- PASS: TestOpenDoorDeadline (0.00s)\n--- PASS: TestNoRetryOnOpenDoor (0.00s)\nPASS\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t0.142s")]),
        User("Analytics lost Saturday's and Sunday's door events. Their consumer was down from Friday evening "
             "until Monday morning."),
        Assistant("LOCKER_EVENTS keeps messages for 72 hours and the analytics durable was down for about 86 hours, "
                  "so everything older than 72 hours was deleted before it reconnected. Those events are gone from "
                  "NATS, but every door event is also written to the door_events table in Postgres, so analytics "
                  "can backfill the weekend from there.",
                  [Bash("nats --context prod stream info LOCKER_EVENTS --json | jq '.config.max_age, "
                        ".state.first_ts'",
                        "259200000000000\n\"2024-08-26T07:12:44Z\""),
                   Bash("nats --context prod consumer info LOCKER_EVENTS analytics-door --json | jq "
                        "'.delivered.last_active'",
                        "\"2024-08-26T07:05:10Z\"")]),
        User("Make it a week."),
        Assistant("maxAge: 168h on the stream now. At about 40k events a day that stays under 1GB of file storage "
                  "per replica.",
                  [Edit("deploy/helm/kestrel/templates/stream.yaml", "  maxAge: 72h\n", "  maxAge: 168h\n")]),
        User("Also from platform: every NATS subject has to be prefixed with the owning service now. Billing's new "
             "stream on locker.billing.> collides with ours; their create fails with `nats: API error: code=400 "
             "err_code=10065 description=subjects overlap with an existing stream`."),
        Assistant("Door events now go out on kestrel.v1.door.opened and LOCKER_EVENTS captures kestrel.v1.> "
                  "instead of locker.>. Since stream.yaml changed twice today, the chart goes from version: 0.4.0 "
                  "to version: 0.4.1. One problem: the notifier's consumer still filters on the old subject and "
                  "would stop getting events the moment this ships. I'd publish on both subjects for a release.",
                  [Edit("internal/events/publisher.go", "p.js.Publish(ctx, \"locker.door.opened\", data)",
                        "p.js.Publish(ctx, \"kestrel.v1.door.opened\", data)"),
                   Edit("deploy/helm/kestrel/templates/stream.yaml", "    - \"locker.>\"\n",
                        "    - \"kestrel.v1.>\"\n"),
                   Edit("deploy/helm/kestrel/Chart.yaml", "version: 0.4.0\n", "version: 0.4.1\n")]),
        User("No dual publishing, it would just linger forever. The notifier team deploys their filter change at "
             "15:00; we ship at the same time."),
        Assistant("Single subject, then. I sent the notifier team the one-line change for their notifier-door "
                  "durable (FilterSubject kestrel.v1.door.opened). After both deploys at 15:00 their consumer "
                  "filters on the new subject and is receiving events, with no pending backlog.",
                  [Bash("make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/events\t1.288s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t1.004s"),
                   Bash("nats --context prod consumer info LOCKER_EVENTS notifier-door --json | jq -r "
                        "'.config.filter_subject, .num_pending'",
                        "kestrel.v1.door.opened\n0")]),
    ]),
    ("ks7-mobile-414", 4, [
        User("Mobile team: since the 4.14 release, Android users on mobile data get 429s on app start; the app "
             "now fires about 60 requests at launch. And support sees a pile of 404s from iOS."),
        Assistant("The 429s come almost entirely from a few addresses in 100.64.0.0/10, which is carrier-grade "
                  "NAT: thousands of phones share one IP, and /v1 allows 100 requests per minute per IP, so one "
                  "busy carrier address is exhausted for everyone behind it. The 404s are iOS 4.14 calling POST "
                  "/v1/lockers/{id}/door/ with a trailing slash, and chi matches paths exactly (gorilla had "
                  "StrictSlash). I'd add middleware.RedirectSlashes so those get a 301 to the canonical path.",
                  [Bash("kubectl -n kestrel logs deploy/kestrel --since=24h | jq -r 'select(.status==429) | "
                        ".remote_ip' | sort | uniq -c | sort -rn | head -3",
                        "  18422 100.64.12.7\n  15310 100.64.12.9\n   9877 100.64.40.2"),
                   Bash("kubectl -n kestrel logs deploy/kestrel --since=24h | jq -r 'select(.status==404) | "
                        ".path' | sed 's/L-[0-9]*/L-ID/' | sort | uniq -c | sort -rn | head -2",
                        "   6210 /v1/lockers/L-ID/door/\n     14 /v1/lockers/L-ID")]),
        User("Rate limit per account instead of per IP, and give them 300 a minute; requests without a token "
             "still go by IP. And no redirects: iOS's URLSession turns a redirected POST into a GET. Strip the "
             "slash on our side."),
        Assistant("/v1 is now limited to 300 requests per minute per account, keyed on the account id from the "
                  "verified token (the auth middleware runs before the limiter), and falls back to the client IP "
                  "without a token. Trailing slashes are stripped with middleware.StripSlashes, no redirect; POST "
                  "/v1/lockers/L-100/door/ returns 200 in the new router test. Tests pass.",
                  [Edit("internal/api/router.go", "\t\tr.Use(httprate.LimitByIP(100, time.Minute))\n",
                        "\t\tr.Use(httprate.Limit(300, time.Minute,\n"
                        "\t\t\thttprate.WithKeyFuncs(accountOrIPKey),\n"
                        "\t\t\thttprate.WithLimitHandler(tooManyRequests),\n\t\t))\n"),
                   Write("internal/api/ratelimit.go",
                         "package api\n\nfunc accountOrIPKey(r *http.Request) (string, error) {\n"
                         "\tif id, ok := auth.AccountID(r.Context()); ok {\n\t\treturn \"acct:\" + id, nil\n\t}\n"
                         "\treturn httprate.KeyByIP(r)\n}\n"),
                   Edit("internal/api/router.go", "\tr.Use(middleware.RequestID, middleware.Recoverer)\n",
                        "\tr.Use(middleware.RequestID, middleware.Recoverer, middleware.StripSlashes)\n"),
                   Bash("make test",
                        "go test -race ./...\nok  \tgithub.com/parcelnest/kestrel/internal/api\t1.342s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/events\t1.279s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/hatch\t1.010s\n"
                        "ok  \tgithub.com/parcelnest/kestrel/internal/reservations\t1.066s")]),
        User("Finance: the nightly usage report failed twice this week, and when it worked it took 50 minutes."),
        Assistant("Both failures are `canceling statement due to statement timeout` on the monthly aggregate, and "
                  "the slow runs have the same cause: Cloud SQL's automated backup starts at 02:00 (start_time in "
                  "cloudsql.tf), the same minute the CronJob starts, and the instance's disk is saturated until "
                  "about 04:00. Now that the read replica exists, the job could also read from it.",
                  [Bash("kubectl -n kestrel get jobs -l app.kubernetes.io/component=usage-report "
                        "--sort-by=.metadata.creationTimestamp | tail -4",
                        "NAME                            COMPLETIONS   DURATION   AGE\n"
                        "kestrel-usage-report-28761240   0/1           41m        3d\n"
                        "kestrel-usage-report-28762680   1/1           52m        2d\n"
                        "kestrel-usage-report-28764120   0/1           40m        1d"),
                   Bash("kubectl -n kestrel logs job/kestrel-usage-report-28764120 | tail -1",
                        "{\"level\":\"ERROR\",\"msg\":\"usage report failed\",\"err\":\"monthly aggregate: ERROR: "
                        "canceling statement due to statement timeout (SQLSTATE 57014)\"}")]),
        User("Move it to 04:30, after the backup window. The replica for the report comes later; put it on the "
             "list."),
        Assistant("The CronJob runs at 04:30 Europe/Berlin now. That's a template change, so the chart is version: "
                  "0.5.0. Moving the report onto the replica is on the list.",
                  [Edit("deploy/helm/kestrel/templates/cronjob-usage-report.yaml", "  schedule: \"0 2 * * *\"\n",
                        "  schedule: \"30 4 * * *\"\n"),
                   Edit("deploy/helm/kestrel/Chart.yaml", "version: 0.4.1\n", "version: 0.5.0\n")]),
        User("And mobile says 4.14 is at 92% adoption, so courier batch open is safe. Turn it on by default."),
        Assistant("flags.batchDoorOpen is true by default now, which enables POST /v1/lockers/{id}/doors:batch for "
                  "every courier. Older apps never call that endpoint, so they are unaffected.",
                  [Edit("deploy/helm/kestrel/values.yaml", "  batchDoorOpen: false\n", "  batchDoorOpen: true\n"),
                   Bash("helm template deploy/helm/kestrel -f deploy/helm/kestrel/values-prod.yaml | grep -A1 "
                        "BATCH_DOOR_OPEN",
                        "            - name: KESTREL_FLAG_BATCH_DOOR_OPEN\n              value: \"true\"")]),
        User("OK, I have to go. Where are we?"),
        Assistant("Nothing is committed: the per-account rate limit, StripSlashes, the 04:30 schedule, chart 0.5.0 "
                  "and the batchDoorOpen default are in the working tree for you to review and commit. Still open: "
                  "move the usage report onto the kestrel-pg-replica read replica; evaluate PgBouncer (or Cloud "
                  "SQL's managed connection pooling) before the HPA ceiling goes up again, since the pool of 20 "
                  "per pod is what keeps us under max_connections; a Grafana panel for hatch OpenDoor latency split "
                  "by LTE and fibre; a load test of the per-account limit with the mobile team before 4.15; and "
                  "the Cloud SQL upgrade from Postgres 15 to Postgres 16.",
                  [Todo([("Rate limit per account, 300 per minute", "completed"),
                         ("Strip trailing slashes (no redirects)", "completed"),
                         ("Usage report at 04:30, after the backup window", "completed"),
                         ("batchDoorOpen on by default", "completed"),
                         ("Point the usage report at the kestrel-pg-replica read replica", "pending"),
                         ("Evaluate PgBouncer / Cloud SQL managed connection pooling", "pending"),
                         ("Grafana panel: hatch OpenDoor latency by uplink (LTE vs fibre)", "pending"),
                         ("Load test the per-account rate limit with the mobile team before 4.15", "pending"),
                         ("Upgrade Cloud SQL from Postgres 15 to Postgres 16", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("Which port does the gRPC server listen on?", ["50051"],
     ["grpcPort: 9090", "GRPC_PORT\", 9090", "localhost:9090 kestrel"]),
    ("Why did gRPC get moved off its original port?", ["address already in use", "Prometheus' port everywhere"], []),
    ("Where does sqlc take the database schema from?", ["schema: \"db/migrations\"", "pointed schema at db/migrations"],
     ["schema: \"sql/schema\""]),
    ("The first code generation run complained about a missing column. What was going on?",
     ["hand-written schema.sql", "column \"locker_id\" does not exist"], []),
    ("Can I fix a typo straight in the generated db package?", ["never hand-edit", "internal/db is generated only"],
     []),
    ("How do I regenerate the query code?", ["make generate"], []),
    ("How do I run the database migrations locally?", ["make migrate-up", "goose -dir db/migrations"], []),
    ("How do I run the tests?", ["make test", "go test -race ./..."], []),
    ("How do I lint the code?", ["make lint"], []),
    ("How should handler tests be written here?", ["fake.NewStore()", "internal/store/fake", "require, not assert"],
     []),
    ("Are you allowed to commit for me?", ["don't ever commit or push", "Nothing is committed"], []),
    ("How long does a reservation keep a locker blocked?", ["20 * time.Minute", "20 minutes"],
     ["30 * time.Minute"]),
    ("Why did we shorten the reservation hold?", ["blocked by reservations nobody picks up"], []),
    ("Which NATS subject carries the door-opened events?", ["kestrel.v1.door.opened"], ["locker.door.opened"]),
    ("Why did our NATS subjects get renamed?", ["subjects overlap with an existing stream",
                                                "prefixed with the owning service"], []),
    ("Did we publish to the old and the new subject for a while?", ["No dual publishing"], []),
    ("Which subjects does the LOCKER_EVENTS stream capture?", ["kestrel.v1.>"], ["- \"locker.>\""]),
    ("How long are door events kept in JetStream?", ["maxAge: 168h"], ["maxAge: 72h"]),
    ("Why did we lengthen the stream retention?", ["down for about 86 hours", "Friday evening until Monday morning"],
     []),
    ("Can analytics get the lost weekend events back?", ["door_events table"], []),
    ("Is the app allowed to create the JetStream stream on startup?",
     ["never creates or changes streams", "nack JetStream resources"], []),
    ("What did 'no response from stream' mean when publishing?", ["a stream that captures the subject"], []),
    ("Which logging library do we use?", ["log/slog"], ["github.com/sirupsen/logrus v1.9.3"]),
    ("Why did we drop logrus?", ["9.1% of allocated bytes", "Loki keeps failing to parse"], []),
    ("Which HTTP router does the API use?", ["chi.NewRouter", "go-chi/chi"], ["mux.NewRouter()"]),
    ("Why did we switch routers?", ["mess of subrouters", "rate limit only on /v1"], []),
    ("After the router switch openDoor returned 400. Why?", ["mux.Vars", "chi.URLParam"], []),
    ("What's the request rate limit on the public API?", ["300 requests per minute per account",
                                                          "httprate.Limit(300"],
     ["LimitByIP(100", "100 requests per minute per IP"]),
    ("Why were Android users getting 429s?", ["carrier-grade NAT", "100.64.0.0/10"], []),
    ("What fixed the 404s from the iOS app?", ["middleware.StripSlashes", "trailing slash"], []),
    ("Why not answer trailing-slash URLs with a redirect?", ["turns a redirected POST into a GET"], []),
    ("What's the pgx connection pool size per pod?", ["poolMaxConns: 20", "pool_max_conns=20"],
     ["poolMaxConns: 25", "pool_max_conns=25", "poolMaxConns: 10", "pool_max_conns=10"]),
    ("Why was the pool made bigger after the load test?", ["acquire conn: context deadline exceeded"], []),
    ("Why did we shrink the connection pool again later?", ["remaining connection slots are reserved",
                                                            "8 × 25 = 200"], []),
    ("Could we just raise max_connections on the database instead?", ["Don't touch max_connections"], []),
    ("How many replicas can the API autoscale to?", ["maxReplicas: 8"], ["maxReplicas: 4"]),
    ("Why did the autoscaler ceiling go up?", ["CPU at 160%", "sat at its max for over an hour"], []),
    ("What's the memory limit on the API pods?", ["512Mi"], ["memory: 256Mi"]),
    ("Why were the prod pods restarting?", ["OOMKilled", "bytes.Buffer"], []),
    ("What is GOMEMLIMIT set to?", ["460MiB"], []),
    ("How does the usage CSV export keep memory down now?", ["streams rows", "csv.Writer"], []),
    ("Which Go version are we on?", ["1.23.2"], ["toolchain go1.22.5", "golang:1.22.5"]),
    ("Why did we move to a new Go minor version?", ["govulncheck", "Don't chase 1.22 patch releases"], []),
    ("Which golangci-lint version do we pin?", ["v1.61.0"], ["GOLANGCI_VERSION ?= v1.59.1", "version: v1.59.1"]),
    ("Why did lint stop working right after the Go upgrade?", ["lower than the targeted Go version"], []),
    ("What replaced the exportloopref linter?", ["copyloopvar"], []),
    ("Which GKE cluster runs production?", ["kes-gke-prod-ew3"], ["prod-europe-west1"]),
    ("What namespace is kestrel deployed into in prod?", ["namespace: kestrel"], ["namespace: parcelnest-prod"]),
    ("Why did the very first prod sync fail?", ["namespaces \"kestrel\" not found", "CreateNamespace=true"], []),
    ("How do I deploy to prod by hand?", ["argocd app sync kestrel-prod"], []),
    ("May I run terraform apply from my machine?", ["never run terraform apply from a laptop", "Atlantis applies"],
     []),
    ("Terraform says the state is locked. What should I do?", ["Never force-unlock", "ask in #infra"], []),
    ("What region and Postgres version is the Cloud SQL instance?", ["POSTGRES_15", "europe-west3"], []),
    ("When does the nightly usage report run?", ["30 4 * * *", "04:30"], ["\"0 2 * * *\""]),
    ("Why did the usage report keep failing or running slow?", ["backup starts at 02:00", "statement timeout"], []),
    ("What's the current chart version?", ["version: 0.5.0", "chart 0.5.0"],
     ["version: 0.4.1", "version: 0.4.0", "version: 0.3.1", "version: 0.3.0"]),
    ("What's the rule about the Chart.yaml version?", ["Always bump the version in Chart.yaml"], []),
    ("At what error rate do we get paged?", ["> 0.02", "2% for 10 minutes"], ["> 0.01"]),
    ("Where do smaller error-rate warnings go?", ["#kestrel-alerts"], []),
    ("Where do the Prometheus alert rules live?", ["deploy/monitoring/kestrel-rules.yaml"], []),
    ("How long do we wait for the hatch gateway to open a door?", ["3 * time.Second", "3 seconds"],
     ["800 * time.Millisecond"]),
    ("Why were door openings timing out?", ["p99 is 2.1s", "LTE"], []),
    ("Do we retry door-open commands to hatch?", ["no retries on door opens", "pops the door a second time"], []),
    ("Is courier batch door opening on by default?", ["batchDoorOpen: true", "batchDoorOpen is true"],
     ["batchDoorOpen: false"]),
    ("Why was it fine to enable batch open for everyone?", ["92% adoption"], []),
    ("Can I rename a JSON field in the v1 API?", ["Never rename or remove a field in /v1"], []),
    ("How did the nearby lockers endpoint get metres?", ["distance_m"], []),
    ("How should errors be handled, log them or return them?", ["only the top of the request logs", "%w"], []),
    ("How do I run the load test?", ["k6 run --vus 200 --duration 2m loadtest/reservations.js"], []),
    ("What's still open for next time?", ["PgBouncer", "kestrel-pg-replica", "Postgres 16"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("pool_max_conns=20", "poolMaxConns: 20", "pool of 20"), ("maxReplicas: 8",),
              ("300 requests per minute per account", "httprate.Limit(300", "300 per minute"),
              ("30 4 * * *", "04:30"),
              ("PgBouncer", "kestrel-pg-replica", "Postgres 16")],
    "stale": ["poolMaxConns: 25", "pool_max_conns=25", "maxReplicas: 4", "locker.door.opened", "\"0 2 * * *\"",
              "memory: 256Mi", "go1.22.5", "LimitByIP(100", "maxAge: 72h", "batchDoorOpen: false",
              "800 * time.Millisecond", "> 0.01", "version: 0.4.1", "prod-europe-west1"],
}
