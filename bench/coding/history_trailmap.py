"""History B (held out: written with history A, scored only to check that a change carries over): six weeks of
Claude Code sessions on "trailmap", a TypeScript hiking app (Next.js front end, Express API, Prisma, Postgres).

Values change (the Node version, the test runner, the session lifetime, the nightly job's time, the tiles URL, the
build folder), decisions are agreed in conversation, a command fails and is fixed, and work is left open.
"""
from harness.transcripts import Assistant, Bash, Edit, Todo, User, Write

PROJECT = "trailmap"

SESSIONS = [
    ("t1-init", 44, [
        User("New project: trailmap. Next.js for the web app, an Express API in api/, Prisma with Postgres. "
             "Use Node 18."),
        Assistant("Scaffolded a pnpm workspace with web/ (Next.js 14) and api/ (Express + Prisma), pinned Node 18 "
                  "in .nvmrc.",
                  [Bash("pnpm create next-app web --ts && mkdir api && cd api && pnpm add express prisma "
                        "@prisma/client", "Done in 14.2s"),
                   Write(".nvmrc", "18\n"), Write("api/prisma/schema.prisma", "model Trail { id Int @id }\n")]),
        User("How do I change the database schema and apply it?"),
        Assistant("Edit api/prisma/schema.prisma, then `pnpm prisma migrate dev --name <change>` creates and applies "
                  "a migration locally; in deploys run `pnpm prisma migrate deploy`.",
                  [Bash("cd api && pnpm prisma migrate dev --name init", "Your database is now in sync with your "
                                                                          "schema.")]),
        User("Tests with jest please, and eslint plus prettier."),
        Assistant("Added jest with ts-jest, eslint with the typescript plugin, and prettier; `pnpm test` runs jest.",
                  [Bash("pnpm add -D jest ts-jest eslint prettier", "Done in 9.8s"),
                   Bash("pnpm test", "Tests: 3 passed, 3 total")]),
        User("The API should listen on port 4100."),
        Assistant("The API listens on PORT or 4100 by default.",
                  [Edit("api/src/server.ts", "3000", "Number(process.env.PORT ?? 4100)")]),
    ]),
    ("t2-maps", 37, [
        User("Map tiles come from https://tiles.trailmap.io/{z}/{x}/{y}.png."),
        Assistant("The map component loads tiles from that URL template.",
                  [Edit("web/components/Map.tsx", "", "const TILES = 'https://tiles.trailmap.io/{z}/{x}/{y}.png'")]),
        User("Wrong host, sorry: tiles are served from https://maps.trailmap.io/tiles/{z}/{x}/{y}.png."),
        Assistant("Corrected the tile URL to https://maps.trailmap.io/tiles/{z}/{x}/{y}.png.",
                  [Edit("web/components/Map.tsx", "https://tiles.trailmap.io/{z}/{x}/{y}.png",
                        "https://maps.trailmap.io/tiles/{z}/{x}/{y}.png")]),
        User("Elevation profiles: compute them on the API from the GPX track."),
        Assistant("Added GET /trails/:id/elevation, which parses the GPX with @tmcw/togeojson and samples every "
                  "50 metres.",
                  [Write("api/src/routes/elevation.ts", "router.get('/trails/:id/elevation')\n"),
                   Bash("pnpm test", "Tests: 11 passed, 11 total")]),
        User("I like small focused commits with imperative subject lines, please keep doing that."),
        Assistant("Will do.", [Bash("git commit -am 'Add elevation profiles'", "[main 71c0a2e] Add elevation "
                                                                                 "profiles")]),
    ]),
    ("t3-auth", 30, [
        User("Login with email magic links. Sessions should last 24 hours."),
        Assistant("Implemented magic-link login with signed tokens mailed through Postmark; session cookies are "
                  "httpOnly and expire after 24 hours.",
                  [Write("api/src/auth.ts", "const SESSION_TTL_HOURS = 24\n"),
                   Bash("pnpm test", "Tests: 18 passed, 18 total")]),
        User("Actually make sessions 12 hours, people share devices at trailheads."),
        Assistant("Changed: sessions now expire after 12 hours.",
                  [Edit("api/src/auth.ts", "SESSION_TTL_HOURS = 24", "SESSION_TTL_HOURS = 12")]),
        User("Where do the Postmark credentials go?"),
        Assistant("The API reads the Postmark server token from the POSTMARK_TOKEN environment variable; it is "
                  "never committed."),
        User("Run the migration for the sessions table."),
        Assistant("Applying it.",
                  [Bash("cd api && pnpm prisma migrate deploy", "Error: P1001: Can't reach database server at "
                                                                 "localhost:5432", ok=False)]),
        Assistant("Postgres was not running; I started it with `docker compose up -d db` and the migration then "
                  "applied cleanly.",
                  [Bash("docker compose up -d db && cd api && pnpm prisma migrate deploy",
                        "All migrations have been successfully applied.")]),
    ]),
    ("t4-upgrade", 21, [
        User("jest is slow on this project. What about vitest?"),
        Assistant("vitest runs the same tests through Vite's transform and is usually several times faster for "
                  "TypeScript projects; the API is close to jest's."),
        User("Let's switch to vitest."),
        Assistant("Agreed. Decision: use vitest instead of jest for all tests. Migrated the config and the mocks.",
                  [Bash("pnpm remove jest ts-jest && pnpm add -D vitest", "Done in 6.1s"),
                   Bash("pnpm vitest run", "Test Files  9 passed (9)\n Tests  24 passed (24)")]),
        User("Also bump Node to 20, 18 goes out of support."),
        Assistant("Node 20 is now pinned in .nvmrc, the Dockerfile and CI.",
                  [Edit(".nvmrc", "18", "20"), Edit("Dockerfile", "node:18-alpine", "node:20-alpine")]),
    ]),
    ("t5-jobs", 10, [
        User("We need a nightly job that recomputes trail difficulty. Run it at 02:00 UTC."),
        Assistant("Added a cron job with node-cron in api/src/jobs/difficulty.ts scheduled at 02:00 UTC.",
                  [Write("api/src/jobs/difficulty.ts", "cron.schedule('0 2 * * *', recompute)\n")]),
        User("Move it to 04:30 UTC so it runs after the OSM import finishes."),
        Assistant("Rescheduled the difficulty job to 04:30 UTC.",
                  [Edit("api/src/jobs/difficulty.ts", "'0 2 * * *'", "'30 4 * * *'")]),
        User("The web build output should go to dist/web instead of .next for the static export."),
        Assistant("Set `distDir: 'dist/web'` in next.config.js; `pnpm build` now writes the static export there.",
                  [Edit("web/next.config.js", "", "distDir: 'dist/web'"),
                   Bash("pnpm --filter web build", "Export successful. Files written to dist/web")]),
    ]),
    ("t6-offline", 3, [
        User("Offline mode: cache the last 20 viewed trails in IndexedDB with idb-keyval."),
        Assistant("Trails are cached in IndexedDB (idb-keyval), keeping the 20 most recently viewed.",
                  [Write("web/lib/offline.ts", "const MAX_CACHED_TRAILS = 20\n"),
                   Bash("pnpm vitest run", "Tests  31 passed (31)")]),
        User("Remember that the OSM import runs every Sunday at 01:00 UTC."),
        Assistant("Noted."),
        User("That's it for today."),
        Assistant("Next steps: add a service worker so the offline cache works without a network on first load, "
                  "and write end-to-end tests with Playwright for the login flow.",
                  [Todo([("Offline trail cache", "completed"), ("Add a service worker for offline first load",
                                                                 "pending"),
                         ("Playwright end-to-end tests for the login flow", "pending")])]),
    ]),
]

QUESTIONS = [
    ("Which Node version does the project use?", ["Node 20"], ["Node 18"]),
    ("What test runner do we use?", ["vitest"], ["jest"]),
    ("How do I run the test suite?", ["vitest run"], []),
    ("How long does a login session last?", ["12 hours"], ["24 hours"]),
    ("When does the nightly difficulty job run?", ["04:30 UTC"], ["02:00 UTC"]),
    ("What's the URL template for map tiles?", ["maps.trailmap.io/tiles"], ["tiles.trailmap.io/{z}"]),
    ("Where do the static web build files end up?", ["dist/web"], []),
    ("How do I apply schema changes in production?", ["prisma migrate deploy"], []),
    ("How do I create a database migration during development?", ["prisma migrate dev"], []),
    ("Which port does the API listen on?", ["4100"], []),
    ("Where does the Postmark token come from?", ["POSTMARK_TOKEN"], []),
    ("How do users log in?", ["magic link", "magic-link"], []),
    ("Why did the sessions migration fail the first time?", ["Can't reach database server",
                                                               "Postgres was not running"], []),
    ("How many trails are kept for offline use?", ["20"], []),
    ("Which library stores the offline cache?", ["idb-keyval"], []),
    ("When does the OSM import run?", ["Sunday at 01:00 UTC"], []),
    ("What commit style does the user want?", ["imperative subject lines"], []),
    ("How are elevation profiles computed?", ["GPX"], []),
    ("What's left to do for offline support?", ["service worker"], []),
    ("Which end-to-end test tool is planned?", ["Playwright"], []),
    ("Why did we move off jest?", ["slow"], []),
    ("Which package manager does the workspace use?", ["pnpm"], []),
    ("Which email service sends the login links?", ["Postmark"], []),
    ("Why are sessions short?", ["share devices"], []),
    ("Why does the difficulty job run late at night?", ["after the OSM import"], []),
    ("Which ORM talks to Postgres?", ["Prisma"], []),
    ("What does the elevation endpoint sample?", ["every 50 metres"], []),
    ("Which linters and formatters were set up?", ["eslint", "prettier"], []),
    ("Which Docker base image do we build on?", ["node:20-alpine"], ["node:18-alpine"]),
    ("How do I start the database locally?", ["docker compose up -d db"], []),
    ("What framework is the web app built with?", ["Next.js"], []),
    ("Which library schedules the cron jobs?", ["node-cron"], []),
    ("Where is the difficulty job defined?", ["api/src/jobs/difficulty.ts"], []),
    ("How are session cookies protected?", ["httpOnly"], []),
    ("What is the GPX parsing library?", ["togeojson"], []),
    ("How many tests passed after the vitest migration?", ["24 passed"], []),
    ("Which host serves the map tiles now?", ["maps.trailmap.io"], ["https://tiles.trailmap.io"]),
    ("Which test runner replaced the old one?", ["vitest"], []),
    ("What build command writes the static export?", ["pnpm --filter web build", "pnpm build"], []),
    ("How long do users stay signed in?", ["12 hours"], ["24 hours"]),
]

BRIEF = {
    "holds": ["vitest", ("Node 20", "Node to 20"), "12 hours", "service worker", "Playwright"],
    "stale": ["jest", "Node 18", "24 hours", "02:00 UTC"],
}
