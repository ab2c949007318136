"""History E (held out): eight weeks of Claude Code sessions on "lantern", the order and notification backend of a
small online tea shop (Kettle & Fern).

lantern is TypeScript on Node 20: Fastify with TypeBox schemas, Prisma on Postgres 16, BullMQ on Redis 7 for
background jobs (order confirmations, password resets, abandoned-cart reminders, a low-stock digest), Vitest against
a real test database, pnpm, and Docker images built by GitHub Actions and deployed to a Hetzner VPS behind Caddy.
Over seven sessions values change in varied ways: the API port (the storefront already owns the old one), the Docker
base image (Prisma's engine on musl), the staging hostname (corrected by the user), the pnpm version (forced by a
Dependabot lockfile), the mail library and provider (the spam complaints come a session before the switch), the job
retry count and backoff ("make it 8 attempts"), the rate limit (the user only states the new value), the scheduler
library (duplicate reminders one session, the replacement the next), the digest cron schedule, the Stripe dedupe
TTL, the password-reset link lifetime, the Fastify major version (forced by a plugin) and the Prisma connection
limit. Commands fail and are fixed, the user corrects the assistant and states preferences, and the last session
leaves open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers and
history D's file layout were read), so it checks that recall generalises to a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "lantern"

SESSIONS = [
    ("l1-bootstrap", 56, [
        User("New backend: lantern. It handles orders and customer notifications for the Kettle & Fern shop "
             "(loose-leaf tea, Shopify-ish storefront we built ourselves in Next.js). Node 20, TypeScript, Fastify, "
             "Prisma on Postgres, BullMQ on Redis for jobs, Vitest, pnpm. Scaffold it."),
        Assistant("I'll set up a pnpm project with Fastify 4, TypeScript in strict mode, tsx for the dev loop and "
                  "Prisma. For request validation I'm adding zod with fastify-type-provider-zod so the route "
                  "schemas and the TypeScript types come from one place. docker-compose.yml gets postgres:16 and "
                  "redis:7.2 for local development.",
                  [Bash("pnpm init && pnpm add fastify@4.28.1 @prisma/client bullmq ioredis zod "
                        "fastify-type-provider-zod && pnpm add -D typescript tsx prisma vitest @types/node "
                        "eslint typescript-eslint",
                        "Wrote to /home/dev/lantern/package.json\nPackages: +214\n"
                        "dependencies:\n+ @prisma/client 5.19.1\n+ bullmq 5.12.10\n+ fastify 4.28.1\n"
                        "+ fastify-type-provider-zod 2.0.0\n+ ioredis 5.4.1\n+ zod 3.23.8\n"
                        "devDependencies:\n+ prisma 5.19.1\n+ tsx 4.19.0\n+ typescript 5.5.4\n+ vitest 2.0.5\n"
                        "Done in 9.8s"),
                   Write("docker-compose.yml",
                         "services:\n  postgres:\n    image: postgres:16\n    environment:\n"
                         "      POSTGRES_USER: lantern\n      POSTGRES_PASSWORD: lantern\n"
                         "      POSTGRES_DB: lantern_dev\n    ports: [\"5432:5432\"]\n"
                         "  redis:\n    image: redis:7.2\n    ports: [\"6379:6379\"]\n"),
                   Write("src/server.ts",
                         "import Fastify from 'fastify';\n"
                         "import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';\n\n"
                         "const app = Fastify({ logger: true });\n"
                         "app.setValidatorCompiler(validatorCompiler);\napp.setSerializerCompiler(serializerCompiler);\n"
                         "app.get('/health', async () => ({ status: 'ok' }));\n\n"
                         "await app.listen({ host: '0.0.0.0', port: Number(process.env.PORT ?? 3000) });\n"
                         "export default app;\n")]),
        User("No, not zod. Use TypeBox, Fastify speaks JSON Schema natively and I don't want a conversion layer on "
             "every route. And I prefer named exports, no default exports anywhere in the codebase."),
        Assistant("Switched to TypeBox: @sinclair/typebox for the schemas and @fastify/type-provider-typebox so "
                  "handlers get typed bodies without any zod-to-JSON-Schema step. I split the app into buildApp() in "
                  "src/app.ts (a named export, used by tests too) and a tiny src/server.ts that only calls listen. "
                  "No default exports; I'll stick to that everywhere.",
                  [Bash("pnpm remove zod fastify-type-provider-zod && pnpm add @sinclair/typebox "
                        "@fastify/type-provider-typebox",
                        "Packages: -2 +2\ndependencies:\n- fastify-type-provider-zod 2.0.0\n- zod 3.23.8\n"
                        "+ @fastify/type-provider-typebox 4.1.0\n+ @sinclair/typebox 0.33.7\nDone in 2.1s"),
                   Write("src/app.ts",
                         "import Fastify from 'fastify';\n"
                         "import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';\n\n"
                         "export function buildApp() {\n"
                         "  const app = Fastify({ logger: true }).withTypeProvider<TypeBoxTypeProvider>();\n"
                         "  app.get('/health', async () => ({ status: 'ok' }));\n  return app;\n}\n"),
                   Write("src/server.ts",
                         "import { buildApp } from './app.js';\n\nconst app = buildApp();\n"
                         "await app.listen({ host: '0.0.0.0', port: Number(process.env.PORT ?? 3000) });\n")]),
        User("Prisma schema: customers, orders, order items. Money as integer cents, never floats."),
        Assistant("Here's the schema. Every amount is an Int in cents (totalCents, unitPriceCents) and orders carry "
                  "a currency column defaulting to EUR. Order status is an enum: pending, paid, shipped, cancelled.",
                  [Write("prisma/schema.prisma",
                         "datasource db {\n  provider = \"postgresql\"\n  url      = env(\"DATABASE_URL\")\n}\n"
                         "generator client {\n  provider = \"prisma-client-js\"\n}\n\n"
                         "enum OrderStatus {\n  pending\n  paid\n  shipped\n  cancelled\n}\n\n"
                         "model Customer {\n  id        String   @id @default(uuid())\n"
                         "  email     String   @unique\n  name      String\n  orders    Order[]\n"
                         "  createdAt DateTime @default(now())\n}\n\n"
                         "model Order {\n  id         String      @id @default(uuid())\n"
                         "  customerId String\n  customer   Customer    @relation(fields: [customerId], "
                         "references: [id])\n  status     OrderStatus @default(pending)\n"
                         "  totalCents Int\n  currency   String      @default(\"EUR\")\n  items      OrderItem[]\n"
                         "  createdAt  DateTime    @default(now())\n}\n\n"
                         "model OrderItem {\n  id             String @id @default(uuid())\n  orderId        String\n"
                         "  order          Order  @relation(fields: [orderId], references: [id])\n"
                         "  sku            String\n  quantity       Int\n  unitPriceCents Int\n}\n"),
                   Bash("pnpm prisma migrate dev --name init",
                        "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n"
                        "Datasource \"db\": PostgreSQL database \"lantern_dev\", schema \"public\" at "
                        "\"localhost:5432\"\n\nError: P1001: Can't reach database server at `localhost:5432`\n\n"
                        "Please make sure your database server is running at `localhost:5432`.", ok=False)]),
        Assistant("The migration failed with P1001 because the Postgres container wasn't running yet. I started "
                  "postgres and redis with docker compose and re-ran it; the init migration applied. The .env has "
                  "DATABASE_URL=postgresql://lantern:lantern@localhost:5432/lantern_dev?connection_limit=5 so "
                  "Prisma's pool stays small on the dev box.",
                  [Bash("docker compose up -d postgres redis",
                        "[+] Running 3/3\n ✔ Network lantern_default       Created\n"
                        " ✔ Container lantern-postgres-1  Started\n ✔ Container lantern-redis-1     Started"),
                   Bash("pnpm prisma migrate dev --name init",
                        "Applying migration `20240902101512_init`\n\nThe following migration(s) have been created "
                        "and applied from new schema changes:\n\nmigrations/\n  └─ 20240902101512_init/\n"
                        "    └─ migration.sql\n\nYour database is now in sync with your schema.\n\n"
                        "✔ Generated Prisma Client (v5.19.1) to ./node_modules/@prisma/client in 88ms")]),
        User("how do I start it locally"),
        Assistant("`pnpm dev` runs `tsx watch src/server.ts`, which restarts on every save. It needs the compose "
                  "services up (`docker compose up -d postgres redis`). The API listens on port 3000 unless PORT is "
                  "set.",
                  [Bash("pnpm dev",
                        "> lantern@0.1.0 dev /home/dev/lantern\n> tsx watch src/server.ts\n\n"
                        "{\"level\":30,\"time\":1725272400123,\"pid\":48211,\"hostname\":\"dev-laptop\","
                        "\"msg\":\"Server listening at http://0.0.0.0:3000\"}")]),
        User("Set up vitest. Tests hit a real Postgres, don't mock Prisma."),
        Assistant("vitest.config.ts loads .env.test, which points DATABASE_URL at a separate lantern_test database "
                  "on the same container. tests/setup.ts truncates the tables between tests. The config file is the "
                  "only default export in the repo, because Vitest insists on it. First run failed because that "
                  "database didn't exist yet:",
                  [Write("vitest.config.ts",
                         "import { config } from 'dotenv';\nimport { defineConfig } from 'vitest/config';\n\n"
                         "// the one default export we keep: Vitest requires it\nexport default defineConfig({\n"
                         "  test: { setupFiles: ['tests/setup.ts'], env: config({ path: '.env.test' }).parsed },\n});\n"),
                   Bash("pnpm test",
                        " FAIL  tests/orders.test.ts > POST /orders > creates an order with items\n"
                        "PrismaClientInitializationError: Database `lantern_test` does not exist on the database "
                        "server at `localhost:5432`.\n\n Test Files  2 failed (2)\n      Tests  7 failed (7)",
                        ok=False)]),
        Assistant("Fixed by adding a `test:db` script that resets the test database from the migrations "
                  "(`dotenv -e .env.test -- prisma migrate reset --force --skip-seed`, via dotenv-cli). Run "
                  "`pnpm test:db` once after pulling new migrations, then `pnpm test`. All green now.",
                  [Edit("package.json", "\"test\": \"vitest run\"",
                        "\"test\": \"vitest run\",\n    \"test:db\": \"dotenv -e .env.test -- prisma migrate reset "
                        "--force --skip-seed\""),
                   Bash("pnpm add -D dotenv-cli && pnpm test:db && pnpm test",
                        "Database reset successful\n\n ✓ tests/health.test.ts (1)\n ✓ tests/orders.test.ts (6)\n\n"
                        " Test Files  2 passed (2)\n      Tests  7 passed (7)\n   Duration  2.31s")]),
        User("Good. Conventional commits please, and keep PRs small, one concern each."),
        Assistant("Will do: feat:/fix:/chore: prefixes and one concern per PR. Where we are:",
                  [Todo([("Scaffold Fastify + TypeBox app", "completed"),
                         ("Prisma schema and init migration", "completed"),
                         ("Vitest against a real test database", "completed"),
                         ("Order confirmation emails", "pending"),
                         ("Deploy pipeline", "pending")])]),
    ]),

    ("l2-notifications", 48, [
        User("Order confirmation emails. When an order is placed the customer gets an email. Use Mailgun SMTP, we "
             "already have an account there."),
        Assistant("I'll add nodemailer with an SMTP transport to smtp.mailgun.org on port 587 and call "
                  "sendMail at the end of the POST /orders handler, right after the transaction commits.",
                  [Read("src/routes/orders.ts",
                        "export async function orderRoutes(app: App) {\n"
                        "  app.post('/orders', { schema: { body: CreateOrderBody } }, async (req, reply) => {\n"
                        "    const order = await createOrder(app.prisma, req.body);\n"
                        "    return reply.code(201).send(order);\n  });\n}\n")]),
        User("No. Never send email from a request handler. Always enqueue a job and return 201; a worker does the "
             "sending. And the worker runs as its own process, not inside the API."),
        Assistant("Got it: handlers only enqueue, the worker is a separate entry point (src/worker.ts, started with "
                  "`pnpm worker`, and its own container later). I created a BullMQ queue called `notifications`; "
                  "default job options are attempts: 3 with a fixed 5 second backoff, and the worker runs with "
                  "concurrency 5. Mail goes out through nodemailer to smtp.mailgun.org:587 with the "
                  "MAILGUN_SMTP_USER / MAILGUN_SMTP_PASSWORD env vars.",
                  [Bash("pnpm add nodemailer && pnpm add -D @types/nodemailer",
                        "+ nodemailer 6.9.14\n+ @types/nodemailer 6.4.15\nDone in 1.9s"),
                   Write("src/queues/notifications.ts",
                         "import { Queue } from 'bullmq';\nimport { redis } from '../redis.js';\n\n"
                         "export const notificationsQueue = new Queue('notifications', {\n"
                         "  connection: redis,\n  defaultJobOptions: {\n    attempts: 3,\n"
                         "    backoff: { type: 'fixed', delay: 5000 },\n    removeOnComplete: 1000,\n  },\n});\n"),
                   Write("src/worker.ts",
                         "import { Worker } from 'bullmq';\nimport { redis } from './redis.js';\n"
                         "import { handleNotification } from './jobs/notifications.js';\n\n"
                         "export const worker = new Worker('notifications', handleNotification, {\n"
                         "  connection: redis,\n  concurrency: 5,\n});\n"),
                   Write("src/mail/transport.ts",
                         "import nodemailer from 'nodemailer';\n\nexport const transport = nodemailer.createTransport({\n"
                         "  host: 'smtp.mailgun.org',\n  port: 587,\n  auth: { user: process.env.MAILGUN_SMTP_USER, "
                         "pass: process.env.MAILGUN_SMTP_PASSWORD },\n});\n"),
                   Bash("pnpm worker",
                        "> tsx src/worker.ts\n\nError: BullMQ: Your redis options maxRetriesPerRequest must be "
                        "null.\n    at new Worker (node_modules/bullmq/dist/cjs/classes/worker.js:121:19)",
                        ok=False)]),
        Assistant("The worker refused to start: BullMQ requires `maxRetriesPerRequest: null` on the ioredis "
                  "connection it uses for blocking commands. I set it in src/redis.ts, the shared connection; the "
                  "worker now starts and processed a test order-confirmation job.",
                  [Edit("src/redis.ts", "export const redis = new IORedis(process.env.REDIS_URL!);",
                        "export const redis = new IORedis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });"),
                   Bash("pnpm worker",
                        "> tsx src/worker.ts\n\n{\"level\":30,\"msg\":\"worker ready queue=notifications "
                        "concurrency=5\"}\n{\"level\":30,\"msg\":\"job completed name=order-confirmation id=1\"}")]),
        User("run the linter"),
        Assistant("ESLint flagged one thing: the enqueue in the orders route wasn't awaited, so a Redis failure "
                  "would have been an unhandled rejection after we'd already answered 201. I added the `await`; "
                  "lint is clean.",
                  [Bash("pnpm lint",
                        "/home/dev/lantern/src/routes/orders.ts\n  14:5  error  Promises must be awaited, end with a "
                        "call to .catch, end with a call to .then with a rejection handler or be explicitly marked "
                        "as ignored with the `void` operator  @typescript-eslint/no-floating-promises\n\n"
                        "✖ 1 problem (1 error, 0 warnings)", ok=False),
                   Edit("src/routes/orders.ts",
                        "    notificationsQueue.add('order-confirmation', { orderId: order.id });",
                        "    await notificationsQueue.add('order-confirmation', { orderId: order.id });"),
                   Bash("pnpm lint", "")]),
        User("Password reset for customer accounts next. Link by email, single use."),
        Assistant("Reset flow: POST /auth/password-reset creates a token of 32 random bytes (base64url), stores only "
                  "its SHA-256 hash in password_reset_tokens with expiresAt and usedAt, and enqueues a "
                  "`password-reset` email with the link. POST /auth/password-reset/confirm checks the hash, that "
                  "usedAt is null and that it hasn't expired, then sets the new password (argon2id) and marks the "
                  "token used. Reset tokens expire after 1 hour. The request endpoint always answers 202 so it "
                  "doesn't reveal which emails have accounts.",
                  [Write("src/auth/reset.ts",
                         "import { createHash, randomBytes } from 'node:crypto';\n\n"
                         "export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;\n\n"
                         "export function newResetToken() {\n  const token = randomBytes(32).toString('base64url');\n"
                         "  const hash = createHash('sha256').update(token).digest('hex');\n"
                         "  return { token, hash, expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_MS) };\n}\n")]),
        User("Also abandoned cart reminders: a cart with items and an email that sits untouched for 24 hours gets "
             "one nudge. And a nightly low-stock digest to Maria, 2am is fine."),
        Assistant("Both are node-cron schedules started by the API process in src/cron/index.ts: the abandoned-cart "
                  "scan runs at the top of every hour ('0 * * * *'), finds carts idle for 24 hours with "
                  "reminderSentAt null and enqueues a reminder; the low-stock digest runs at '0 2 * * *' and "
                  "emails Maria every SKU below its reorder threshold.",
                  [Bash("pnpm add node-cron && pnpm add -D @types/node-cron", "+ node-cron 3.0.3\nDone in 1.4s"),
                   Write("src/cron/index.ts",
                         "import cron from 'node-cron';\nimport { notificationsQueue } from '../queues/notifications.js';\n\n"
                         "export function startCron() {\n"
                         "  cron.schedule('0 * * * *', () => scanAbandonedCarts(notificationsQueue));\n"
                         "  cron.schedule('0 2 * * *', () => notificationsQueue.add('low-stock-digest', {}));\n}\n")]),
        User("tests"),
        Assistant("Two failures that only show up when files run in parallel: orders.test.ts and carts.test.ts both "
                  "truncate the same tables, so one deleted rows under the other. I turned off file parallelism "
                  "(`fileParallelism: false` in vitest.config.ts); the suite is still under 4 seconds.",
                  [Bash("pnpm test",
                        " FAIL  tests/carts.test.ts > abandoned carts > enqueues one reminder per cart\n"
                        "PrismaClientKnownRequestError: Foreign key constraint failed on the field: "
                        "`order_items_order_id_fkey (index)`\n\n Test Files  1 failed | 4 passed (5)\n"
                        "      Tests  2 failed | 19 passed (21)", ok=False),
                   Edit("vitest.config.ts", "test: { setupFiles: ['tests/setup.ts'],",
                        "test: { fileParallelism: false, setupFiles: ['tests/setup.ts'],"),
                   Bash("pnpm test", " Test Files  5 passed (5)\n      Tests  21 passed (21)\n   Duration  3.62s")]),
    ]),

    ("l3-deploy", 39, [
        User("Let's get this deployed. Hetzner VPS with Docker, GitHub Actions builds and ships it. Staging first."),
        Assistant("Plan: a multi-stage Dockerfile (one image, two commands: api and worker), GitHub Actions building "
                  "and pushing to ghcr.io/kettlefern/lantern, then SSH to the VPS and `docker compose up -d`. Caddy "
                  "on the VPS terminates TLS and reverse-proxies to the api container. I started with node:20-alpine "
                  "as the base to keep the image small.",
                  [Write("Dockerfile",
                         "FROM node:20-alpine AS build\nWORKDIR /app\nRUN corepack enable\n"
                         "COPY package.json pnpm-lock.yaml ./\nRUN pnpm install --frozen-lockfile\nCOPY . .\n"
                         "RUN pnpm prisma generate && pnpm build\n\nFROM node:20-alpine\nWORKDIR /app\n"
                         "COPY --from=build /app/dist ./dist\nCOPY --from=build /app/node_modules ./node_modules\n"
                         "CMD [\"node\", \"dist/server.js\"]\n"),
                   Write("deploy/Caddyfile",
                         "staging.api.kettlefern.com {\n  reverse_proxy api:3000\n}\n")]),
        User("Hostname's wrong: it's api.staging.kettlefern.com, not staging.api. The wildcard cert is for "
             "*.staging.kettlefern.com. Also the API can't sit on 3000 on that box, the storefront's Next.js "
             "server is already on it."),
        Assistant("Fixed the Caddy site address to api.staging.kettlefern.com. And I moved the API to port 4100: "
                  "the default in src/config.ts is now 4100, the Dockerfile EXPOSEs 4100, and Caddy proxies to "
                  "api:4100. Locally `pnpm dev` also comes up on 4100 now, so nothing clashes if you run the "
                  "storefront at the same time.",
                  [Edit("deploy/Caddyfile", "staging.api.kettlefern.com {\n  reverse_proxy api:3000\n}",
                        "api.staging.kettlefern.com {\n  reverse_proxy api:4100\n}"),
                   Edit("src/config.ts", "port: Number(process.env.PORT ?? 3000),",
                        "port: Number(process.env.PORT ?? 4100),"),
                   Bash("docker build -t lantern:dev . && docker run --rm --env-file .env -p 4100:4100 lantern:dev",
                        "[+] Building 61.4s (14/14) FINISHED\n"
                        "{\"level\":50,\"msg\":\"PrismaClientInitializationError: Unable to require(`/app/"
                        "node_modules/.prisma/client/libquery_engine-linux-musl.so.node`).\\nThe Prisma engines do "
                        "not seem to be compatible with your system.\\n\\nDetails: Error loading shared library "
                        "libssl.so.1.1: No such file or directory\"}", ok=False)]),
        Assistant("The container crashes at startup: Prisma picked the linux-musl query engine built against "
                  "OpenSSL 1.1, and Alpine only ships OpenSSL 3. I can add `binaryTargets = [\"native\", "
                  "\"linux-musl-openssl-3.0.x\"]` to the generator block and keep Alpine."),
        User("Just use Debian slim, I don't want to fight musl every time Prisma changes something."),
        Assistant("Switched both stages to node:20-bookworm-slim and install openssl with apt in the runtime "
                  "stage. The image is about 70 MB bigger but Prisma picks the debian-openssl-3.0.x engine on its "
                  "own, no binaryTargets needed. The container starts and /health answers.",
                  [Edit("Dockerfile", "FROM node:20-alpine AS build", "FROM node:20-bookworm-slim AS build"),
                   Edit("Dockerfile", "FROM node:20-alpine\nWORKDIR /app",
                        "FROM node:20-bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends "
                        "openssl && rm -rf /var/lib/apt/lists/*\nWORKDIR /app\nEXPOSE 4100"),
                   Bash("docker build -t lantern:dev . && docker run -d --env-file .env -p 4100:4100 lantern:dev "
                        "&& sleep 2 && curl -s localhost:4100/health",
                        "[+] Building 58.9s (15/15) FINISHED\n7f3c1e0b9a2d\n{\"status\":\"ok\"}")]),
        User("Tag images with the git SHA, never :latest. And run migrations as a separate step before the new "
             "containers start, not on app boot."),
        Assistant("The deploy workflow (.github/workflows/deploy.yml) tags the image "
                  "ghcr.io/kettlefern/lantern:${{ github.sha }} only. On the VPS it writes that tag into "
                  "/srv/lantern/.env as LANTERN_IMAGE, runs `docker compose run --rm api pnpm prisma migrate "
                  "deploy`, and only then `docker compose up -d api worker`. If the migration fails the old "
                  "containers keep running.",
                  [Write(".github/workflows/deploy.yml",
                         "name: deploy\non:\n  push:\n    branches: [main]\n  workflow_dispatch:\n    inputs:\n"
                         "      environment:\n        type: choice\n        options: [staging, production]\n"
                         "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
                         "      - uses: pnpm/action-setup@v4\n      - run: pnpm install --frozen-lockfile\n"
                         "      - run: pnpm test\n      - run: docker build -t ghcr.io/kettlefern/lantern:${{ "
                         "github.sha }} .\n      - run: docker push ghcr.io/kettlefern/lantern:${{ github.sha }}\n"
                         "      - run: ssh deploy@${{ vars.VPS_HOST }} \"cd /srv/lantern && "
                         "sed -i 's|^LANTERN_IMAGE=.*|LANTERN_IMAGE=ghcr.io/kettlefern/lantern:${{ github.sha }}|' "
                         ".env && docker compose pull && docker compose run --rm api pnpm prisma migrate deploy && "
                         "docker compose up -d api worker\"\n")]),
        Assistant("First run of the workflow went red at install:",
                  [Bash("gh run view --log-failed",
                        "deploy  Run pnpm install --frozen-lockfile\n ERR_PNPM_OUTDATED_LOCKFILE  Cannot install "
                        "with \"frozen-lockfile\" because pnpm-lock.yaml is not up to date with package.json\n\n"
                        "  Failure reason:\n  specifiers in the lockfile ({}) don't match specs in package.json "
                        "({\"dotenv-cli\":\"^7.4.2\"})", ok=False)]),
        Assistant("dotenv-cli went into package.json last time but the lockfile change never got committed. I ran "
                  "`pnpm install`, committed pnpm-lock.yaml as `chore: update lockfile for dotenv-cli`, and the "
                  "re-run deployed to staging.",
                  [Bash("pnpm install && git add pnpm-lock.yaml && git commit -m 'chore: update lockfile for "
                        "dotenv-cli' && git push",
                        "Lockfile is up to date, resolution step is skipped\n[main 4be91c2] chore: update lockfile "
                        "for dotenv-cli\n 1 file changed, 31 insertions(+)"),
                   Bash("gh run watch && curl -s https://api.staging.kettlefern.com/health",
                        "✓ main deploy · 10842213377\n  ✓ deploy in 3m12s\n{\"status\":\"ok\"}")]),
        User("How do I kick off a staging deploy by hand?"),
        Assistant("`gh workflow run deploy.yml -f environment=staging`, then `gh run watch` to follow it. Pushes to "
                  "main deploy staging automatically; production is only ever the manual dispatch with "
                  "environment=production. The API is at https://api.staging.kettlefern.com and the health check "
                  "is /health."),
    ]),

    ("l4-stripe", 30, [
        User("Stripe. The storefront creates the PaymentIntents at checkout; we need the webhook that marks orders "
             "paid."),
        Assistant("Added POST /webhooks/stripe: it verifies the signature with stripe.webhooks.constructEvent and "
                  "STRIPE_WEBHOOK_SECRET, and on payment_intent.succeeded looks up the order by paymentIntentId and "
                  "sets status paid. Testing with the Stripe CLI forwarding to the local API:",
                  [Bash("stripe listen --forward-to localhost:4100/webhooks/stripe & stripe trigger "
                        "payment_intent.succeeded",
                        "> Ready! Your webhook signing secret is whsec_3f9a... (^C to quit)\n"
                        "2024-09-28 10:14:02   --> payment_intent.succeeded [evt_3Q3kP2Lx]\n"
                        "2024-09-28 10:14:02  <--  [400] POST http://localhost:4100/webhooks/stripe\n"
                        "{\"level\":50,\"msg\":\"StripeSignatureVerificationError: No signatures found matching the "
                        "expected signature for payload. Are you passing the raw request body you received from "
                        "Stripe?\"}", ok=False)]),
        Assistant("Signature verification needs the exact bytes Stripe sent, but Fastify had already parsed the "
                  "JSON. I registered fastify-raw-body with `global: false` and turned it on only for this route "
                  "(`config: { rawBody: true }`), then pass request.rawBody to constructEvent. The trigger now "
                  "gets a 200 and the order flips to paid.",
                  [Bash("pnpm add stripe fastify-raw-body", "+ fastify-raw-body 4.3.0\n+ stripe 16.12.0\nDone in 2.3s"),
                   Edit("src/routes/webhooks.ts", "stripe.webhooks.constructEvent(JSON.stringify(req.body), sig, secret)",
                        "stripe.webhooks.constructEvent(req.rawBody!, sig, secret)"),
                   Bash("stripe trigger payment_intent.succeeded",
                        "2024-09-28 10:21:40   --> payment_intent.succeeded [evt_3Q3kXbLx]\n"
                        "2024-09-28 10:21:40  <--  [200] POST http://localhost:4100/webhooks/stripe")]),
        User("Stripe delivers the same event more than once sometimes. Make the handler idempotent."),
        Assistant("Two layers: before doing anything the handler runs `SET stripe:evt:<event id> 1 NX EX 86400` in "
                  "Redis and returns 200 straight away if the key already existed, so a repeated event is dropped "
                  "for 24 hours. And orders.paymentIntentId is now unique, so even a duplicate that slips past Redis "
                  "can't create a second payment record.",
                  [Edit("src/routes/webhooks.ts", "const event = stripe.webhooks.constructEvent(req.rawBody!, sig, secret);",
                        "const event = stripe.webhooks.constructEvent(req.rawBody!, sig, secret);\n"
                        "    const fresh = await redis.set(`stripe:evt:${event.id}`, '1', 'EX', 86400, 'NX');\n"
                        "    if (!fresh) return reply.code(200).send({ duplicate: true });"),
                   Bash("pnpm prisma migrate dev --name unique_payment_intent",
                        "Applying migration `20240928103355_unique_payment_intent`\nYour database is now in sync "
                        "with your schema.")]),
        User("Unrelated: Maria says three customers found their order confirmation in spam. Gmail is flagging "
             "Mailgun's shared IP pool. We'll have to do something about it, just not today."),
        Assistant("Noted. The options I'd look at: a dedicated IP on Mailgun (extra cost and it needs warming up), "
                  "or moving transactional mail to Postmark, which only does transactional email and has a good "
                  "reputation with Gmail. Either way we should check SPF and DKIM alignment for kettlefern.com. I've "
                  "added it to the list."),
        User("The Dependabot PR is red, have a look"),
        Assistant("The failing step is `pnpm install --frozen-lockfile`:",
                  [Bash("gh pr checks 41 && gh run view 11051733920 --log-failed",
                        "test  fail  1m02s\n\ntest  Run pnpm install --frozen-lockfile\n"
                        " ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile /home/runner/work/lantern/lantern/pnpm-lock.yaml "
                        "not compatible with current pnpm\n\nRun with the --force parameter to recreate the lockfile.",
                        ok=False),
                   Read("package.json", "  \"packageManager\": \"pnpm@8.15.4\",")]),
        Assistant("Dependabot now regenerates lockfiles with pnpm 9 (lockfileVersion '9.0'), but package.json pins "
                  "pnpm 8.15.4 through packageManager, so corepack in CI uses 8 and can't read it. I bumped "
                  "packageManager to pnpm@9.12.1, regenerated the lockfile locally with that version and pushed to "
                  "the Dependabot branch. CI and the Docker build both go through corepack, so they pick up 9.12.1 "
                  "automatically. Everyone needs `corepack enable` locally so they don't write an 8.x lockfile.",
                  [Edit("package.json", "\"packageManager\": \"pnpm@8.15.4\"", "\"packageManager\": \"pnpm@9.12.1\""),
                   Bash("corepack enable && pnpm --version && pnpm install && pnpm test",
                        "9.12.1\nLockfile is up to date, resolution step is skipped\n\n Test Files  7 passed (7)\n"
                        "      Tests  34 passed (34)"),
                   Bash("gh pr checks 41", "test    pass  1m48s\ndeploy  skipping")]),
        User("Rate limiting on the public routes. 100 a minute per IP."),
        Assistant("Registered @fastify/rate-limit globally with max: 100 and timeWindow: '1 minute', keyed by IP "
                  "(trustProxy is on so Caddy's X-Forwarded-For is used, not Caddy's own address). The Stripe "
                  "webhook and /health opt out with `config: { rateLimit: false }`.",
                  [Bash("pnpm add @fastify/rate-limit@9", "+ @fastify/rate-limit 9.1.0"),
                   Edit("src/app.ts", "  app.register(sensible);",
                        "  app.register(sensible);\n  app.register(rateLimit, { max: 100, timeWindow: '1 minute' });"),
                   Todo([("Stripe webhook marks orders paid", "completed"),
                         ("Idempotent webhook handling", "completed"),
                         ("Fix pnpm lockfile break on Dependabot PRs", "completed"),
                         ("Rate limit public routes", "completed"),
                         ("Order confirmations landing in spam: pick a fix", "pending")])]),
    ]),

    ("l5-postmark", 21, [
        User("Let's fix the spam problem. We're moving transactional email to Postmark. Server is set up, the token "
             "is in 1Password as 'Postmark lantern', sender signature for orders@kettlefern.com is verified and DKIM "
             "plus Return-Path DNS records are done."),
        Assistant("I replaced nodemailer with the official postmark client. src/mail/postmark.ts creates a "
                  "ServerClient from POSTMARK_SERVER_TOKEN and sends through the \"outbound\" message stream. The "
                  "templates now live in Postmark, addressed by alias: order-confirmation, password-reset, "
                  "abandoned-cart and low-stock-digest, so Maria can edit copy without a deploy.",
                  [Bash("pnpm remove nodemailer @types/nodemailer && pnpm add postmark",
                        "Packages: -2 +3\n- nodemailer 6.9.14\n+ postmark 4.0.5\nDone in 2.0s"),
                   Write("src/mail/postmark.ts",
                         "import { ServerClient } from 'postmark';\n\n"
                         "const client = new ServerClient(process.env.POSTMARK_SERVER_TOKEN!);\n\n"
                         "export async function sendTemplate(to: string, alias: string, model: object) {\n"
                         "  await client.sendEmailWithTemplate({\n    From: 'Kettle & Fern <orders@kettlefern.com>',\n"
                         "    To: to,\n    TemplateAlias: alias,\n    TemplateModel: model,\n"
                         "    MessageStream: 'outbound',\n  });\n}\n"),
                   Bash("pnpm test",
                        " FAIL  tests/jobs/notifications.test.ts > order-confirmation > sends the template\n"
                        "PostmarkError: Request does not contain a valid Server token.\n\n"
                        " Test Files  1 failed | 7 passed (8)", ok=False)]),
        Assistant("The job tests actually call the client, and .env.test had no token. Postmark accepts the special "
                  "token POSTMARK_API_TEST, which validates the request and returns a success without delivering "
                  "anything, so I put POSTMARK_SERVER_TOKEN=POSTMARK_API_TEST in .env.test. Green again. I also "
                  "removed the MAILGUN_SMTP_* variables from .env.example.",
                  [Edit(".env.test", "MAILGUN_SMTP_USER=test\nMAILGUN_SMTP_PASSWORD=test",
                        "POSTMARK_SERVER_TOKEN=POSTMARK_API_TEST"),
                   Bash("pnpm test", " Test Files  8 passed (8)\n      Tests  39 passed (39)")]),
        User("Another thing. Tuesday Postmark had a ~20 minute API incident and a pile of confirmation jobs ended in "
             "failed. Why didn't they just retry?"),
        Assistant("They did retry, just not for long enough. With attempts: 3 and a fixed 5 second backoff a job "
                  "gives up about 10 seconds after the first failure, well inside a 20 minute outage. 41 jobs are "
                  "sitting in the failed set, all with ETIMEDOUT. I'd suggest 6 attempts with exponential backoff "
                  "from 10 seconds, which covers about 5 minutes.",
                  [Bash("pnpm tsx scripts/queue-stats.ts notifications",
                        "queue=notifications waiting=0 active=0 delayed=0 completed=1000 failed=41\n"
                        "failed sample: id=8812 name=order-confirmation attemptsMade=3 "
                        "failedReason=\"connect ETIMEDOUT 50.31.156.6:443\"")]),
        User("5 minutes doesn't cover it either. Make it 8 attempts, exponential, starting at 30 seconds."),
        Assistant("Done: attempts: 8 with backoff { type: 'exponential', delay: 30000 }. The waits are 30s, 1m, 2m, "
                  "4m, 8m, 16m and 32m, so a job keeps trying for a bit over an hour before it lands in failed. "
                  "Then I retried the 41 failed jobs; all completed.",
                  [Edit("src/queues/notifications.ts",
                        "    attempts: 3,\n    backoff: { type: 'fixed', delay: 5000 },",
                        "    attempts: 8,\n    backoff: { type: 'exponential', delay: 30000 },"),
                   Bash("pnpm tsx scripts/retry-failed.ts notifications",
                        "retrying 41 failed jobs in queue=notifications\nretried 41, errors 0")]),
        User("rate limit 300 per minute"),
        Assistant("Updated: @fastify/rate-limit now allows 300 requests per minute per IP (the webhook and health "
                  "check are still exempt).",
                  [Edit("src/app.ts", "app.register(rateLimit, { max: 100, timeWindow: '1 minute' });",
                        "app.register(rateLimit, { max: 300, timeWindow: '1 minute' });")]),
        User("Also, Jonas got the abandoned cart email twice this morning. Two other customers did too."),
        Assistant("Found it. Since last week's deploy staging and production run the api service with "
                  "`deploy: replicas: 2`, and the node-cron schedules start inside every API process. So at the top "
                  "of the hour both replicas scan the same carts and both enqueue a reminder before either sets "
                  "reminderSentAt. The low-stock digest is also sent twice, Maria just hadn't mentioned it.",
                  [Bash("ssh deploy@fern-vps-1 'cd /srv/lantern && docker compose ps --format \"{{.Name}} "
                        "{{.Status}}\" && docker compose logs api --since 6h | grep abandoned-cart'",
                        "lantern-api-1 Up 6 days\nlantern-api-2 Up 6 days\nlantern-worker-1 Up 6 days\n"
                        "lantern-api-1  | {\"msg\":\"abandoned-cart scan enqueued=3\"}\n"
                        "lantern-api-2  | {\"msg\":\"abandoned-cart scan enqueued=3\"}")]),
        Assistant("Two ways out. 1) Put a Redis lock around each cron tick (SET NX with a short TTL) so only one replica runs it; "
                  "quick, but the schedule still lives in every API process. 2) Drop node-cron and let BullMQ own "
                  "the schedule with a job scheduler in Redis: the schedule exists once, the worker picks up each "
                  "tick exactly once regardless of how many processes run, and it fits the rule that background "
                  "work belongs in the worker, not the API."),
        User("Option 2, but next session. For today put in the lock so nobody gets a third email."),
        Assistant("Stopgap in place: each cron tick first does `SET cron:<name> 1 NX EX 300` and skips if another "
                  "replica got there first. Deployed to production.",
                  [Edit("src/cron/index.ts", "  cron.schedule('0 * * * *', () => scanAbandonedCarts(notificationsQueue));",
                        "  cron.schedule('0 * * * *', () => withLock('abandoned-cart', () => "
                        "scanAbandonedCarts(notificationsQueue)));"),
                   Bash("gh workflow run deploy.yml -f environment=production && gh run watch",
                        "✓ main deploy · 11236509817\n  ✓ deploy in 3m31s"),
                   Todo([("Move transactional email to Postmark", "completed"),
                         ("Longer retries for notification jobs", "completed"),
                         ("Redis lock stopgap for duplicate cron runs", "completed"),
                         ("Replace node-cron with BullMQ job schedulers", "pending")])]),
    ]),

    ("l6-scheduler", 11, [
        User("Replace node-cron with the BullMQ scheduler like we said."),
        Assistant("Job schedulers (queue.upsertJobScheduler) need BullMQ 5.16 or newer and we're on 5.12.10, so I "
                  "bumped it to 5.21.2. src/schedules.ts upserts two schedulers on worker start: `abandoned-cart` "
                  "with pattern '0 * * * *' and `low-stock-digest` with '0 2 * * *'. Upsert is idempotent, so "
                  "restarting the worker doesn't create duplicates. node-cron, src/cron/ and the Redis lock stopgap "
                  "are gone; the API process no longer schedules anything.",
                  [Bash("pnpm add bullmq@5.21.2 && pnpm remove node-cron @types/node-cron",
                        "- node-cron 3.0.3\n- @types/node-cron 3.0.11\n+ bullmq 5.21.2 (was 5.12.10)\nDone in 2.6s"),
                   Write("src/schedules.ts",
                         "import { notificationsQueue } from './queues/notifications.js';\n\n"
                         "export async function upsertSchedules() {\n"
                         "  await notificationsQueue.upsertJobScheduler('abandoned-cart', { pattern: '0 * * * *' }, "
                         "{ name: 'abandoned-cart' });\n"
                         "  await notificationsQueue.upsertJobScheduler('low-stock-digest', { pattern: '0 2 * * *' }, "
                         "{ name: 'low-stock-digest' });\n}\n"),
                   Bash("pnpm worker",
                        "> tsx src/worker.ts\n\nIMPORTANT! Eviction policy is allkeys-lru. It should be "
                        "\"noeviction\"\n{\"level\":30,\"msg\":\"worker ready queue=notifications concurrency=5\"}\n"
                        "{\"level\":30,\"msg\":\"schedulers upserted: abandoned-cart, low-stock-digest\"}")]),
        Assistant("The worker starts, but BullMQ warns that Redis uses allkeys-lru. In deploy/docker-compose.yml I "
                  "had started redis with `--maxmemory 256mb --maxmemory-policy allkeys-lru`, and under memory "
                  "pressure Redis would silently evict BullMQ's keys, i.e. lose jobs and schedules. I switched "
                  "both the local and the VPS compose files to `--maxmemory-policy noeviction`: with that, a full "
                  "Redis makes writes fail loudly instead of dropping jobs.",
                  [Edit("deploy/docker-compose.yml",
                        "command: redis-server --appendonly yes --maxmemory 256mb --maxmemory-policy allkeys-lru",
                        "command: redis-server --appendonly yes --maxmemory 256mb --maxmemory-policy noeviction"),
                   Bash("docker compose up -d redis && pnpm worker",
                        " ✔ Container lantern-redis-1  Started\n> tsx src/worker.ts\n\n"
                        "{\"level\":30,\"msg\":\"worker ready queue=notifications concurrency=5\"}")]),
        User("Maria wants the stock digest when she starts work, not at 2am. Weekdays 6:30, Berlin time."),
        Assistant("Changed the low-stock-digest scheduler to pattern '30 6 * * 1-5' with tz 'Europe/Berlin', so it "
                  "follows daylight saving on its own. Because upsertJobScheduler replaces the scheduler with the "
                  "same id, the 2am one disappears on the next worker start.",
                  [Edit("src/schedules.ts", "upsertJobScheduler('low-stock-digest', { pattern: '0 2 * * *' },",
                        "upsertJobScheduler('low-stock-digest', { pattern: '30 6 * * 1-5', tz: 'Europe/Berlin' },")]),
        User("how can I see what's scheduled"),
        Assistant("`pnpm tsx scripts/schedules.ts` lists every job scheduler with its pattern and next run:",
                  [Bash("pnpm tsx scripts/schedules.ts",
                        "abandoned-cart    pattern=0 * * * *                       next=2024-10-17T14:00:00Z\n"
                        "low-stock-digest  pattern=30 6 * * 1-5 tz=Europe/Berlin   next=2024-10-18T04:30:00Z")]),
        User("Stripe dashboard shows webhook redeliveries arriving more than a day later. Stripe keeps retrying "
             "for up to 3 days. Make the dedupe key live 72 hours."),
        Assistant("The Redis key now expires after 72 hours: `SET stripe:evt:<id> 1 NX EX 259200`. Keys written "
                  "with the old TTL just expire on their own schedule; nothing to migrate.",
                  [Edit("src/routes/webhooks.ts", "await redis.set(`stripe:evt:${event.id}`, '1', 'EX', 86400, 'NX');",
                        "await redis.set(`stripe:evt:${event.id}`, '1', 'EX', 259200, 'NX');")]),
        User("Lukas did a security review. Reset links should be valid 15 minutes, not an hour. And when a password "
             "is changed, kill every other outstanding reset token for that customer."),
        Assistant("RESET_TOKEN_TTL_MS is now 15 * 60 * 1000, and a successful reset deletes all of that customer's "
                  "remaining password_reset_tokens in the same transaction. One test broke because it used a token "
                  "created 30 minutes ago as the valid case:",
                  [Edit("src/auth/reset.ts", "export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;",
                        "export const RESET_TOKEN_TTL_MS = 15 * 60 * 1000;"),
                   Bash("pnpm test",
                        " FAIL  tests/auth/reset.test.ts > confirm > accepts a token created 30 minutes ago\n"
                        "AssertionError: expected 410 to be 200 // Object.is equality\n\n"
                        " Test Files  1 failed | 9 passed (10)", ok=False),
                   Edit("tests/auth/reset.test.ts", "it('accepts a token created 30 minutes ago'",
                        "it('accepts a token created 10 minutes ago'"),
                   Bash("pnpm test", " Test Files  10 passed (10)\n      Tests  47 passed (47)")]),
        User("ship it to staging"),
        Assistant("Pushed to main; the workflow ran the migration step (none pending), restarted api and worker on "
                  "staging, and the worker log shows both schedulers registered against the staging Redis.",
                  [Bash("git push && gh run watch && ssh deploy@fern-vps-1 'cd /srv/lantern-staging && docker compose "
                        "logs worker --since 5m | grep schedulers'",
                        "✓ main deploy · 11402287764\n  ✓ deploy in 3m05s\n"
                        "lantern-staging-worker-1  | {\"msg\":\"schedulers upserted: abandoned-cart, "
                        "low-stock-digest\"}")]),
    ]),

    ("l7-refunds", 3, [
        User("Refunds. When we refund in the Stripe dashboard, mark the order refunded or partially refunded and "
             "email the customer."),
        Assistant("The webhook now also handles charge.refunded: if amount_refunded equals the charge amount the "
                  "order becomes `refunded`, otherwise `partially_refunded` with refundedCents stored. Then it "
                  "enqueues a `refund-confirmation` job that sends the Postmark template of the same alias. New enum "
                  "values and the column came in one migration.",
                  [Edit("prisma/schema.prisma", "  shipped\n  cancelled\n}",
                        "  shipped\n  cancelled\n  refunded\n  partially_refunded\n}"),
                   Bash("pnpm prisma migrate dev --name order_refunds",
                        "Applying migration `20241025091207_order_refunds`\nYour database is now in sync with your "
                        "schema.\n✔ Generated Prisma Client (v5.21.1)"),
                   Bash("stripe trigger charge.refunded",
                        "2024-10-25 09:16:51   --> charge.refunded [evt_3QDr8sLx]\n"
                        "2024-10-25 09:16:51  <--  [200] POST http://localhost:4100/webhooks/stripe")]),
        User("Dependabot PR for @fastify/rate-limit 10 is failing, check it"),
        Assistant("The app doesn't boot in CI with the new plugin:",
                  [Bash("gh run view 11511820154 --log-failed",
                        "test  FAIL  tests/health.test.ts\n"
                        "FastifyError [Error]: fastify-plugin: @fastify/rate-limit - expected '5.x' fastify "
                        "version, '4.28.1' is installed\n    at checkVersion "
                        "(node_modules/fastify/lib/pluginUtils.js:131:11)", ok=False)]),
        Assistant("@fastify/rate-limit 10 only supports Fastify 5. We can either pin the plugin to ^9 and ignore "
                  "the major in Dependabot, or upgrade Fastify itself. Fastify 4 goes out of support next year, and "
                  "the other plugins will do the same thing one by one."),
        User("Go to Fastify 5, we'd have to do it anyway."),
        Assistant("Upgraded to fastify 5.1.0 together with the matching plugin majors (type-provider-typebox 5, "
                  "fastify-raw-body 5, rate-limit 10, sensible 6). Typecheck found one break: Fastify 5 removed "
                  "reply.getResponseTime(), which our timing hook used; it's reply.elapsedTime now.",
                  [Bash("pnpm add fastify@5.1.0 @fastify/type-provider-typebox@5 fastify-raw-body@5 "
                        "@fastify/rate-limit@10 @fastify/sensible@6 && pnpm typecheck",
                        "+ fastify 5.1.0 (was 4.28.1)\n+ @fastify/rate-limit 10.1.1\n\n> tsc --noEmit\n\n"
                        "src/plugins/timing.ts(12,31): error TS2339: Property 'getResponseTime' does not exist on "
                        "type 'FastifyReply<...>'.", ok=False),
                   Edit("src/plugins/timing.ts", "const ms = reply.getResponseTime();", "const ms = reply.elapsedTime;"),
                   Bash("pnpm typecheck && pnpm test",
                        "> tsc --noEmit\n\n Test Files  11 passed (11)\n      Tests  53 passed (53)")]),
        User("Staging throws 500s under the k6 run for the Black Friday prep"),
        Assistant("It's the Prisma connection pool, not Postgres itself:",
                  [Bash("ssh deploy@fern-vps-1 'cd /srv/lantern-staging && docker compose logs api --since 15m | "
                        "grep -m1 P2024'",
                        "lantern-staging-api-1  | PrismaClientKnownRequestError: Timed out fetching a new connection "
                        "from the connection pool. More info: http://pris.ly/d/connection-pool (Current connection "
                        "pool timeout: 10, connection limit: 5) code=P2024")]),
        Assistant("Each API process is still capped at connection_limit=5 from the very first .env, and at ~150 "
                  "virtual users requests queue for a connection longer than the 10 second pool timeout. I'd raise "
                  "it to 25 per process."),
        User("15. Postgres has max_connections 100, and it's two api replicas plus the worker plus Maria's Metabase "
             "on that box."),
        Assistant("Set connection_limit=15 in DATABASE_URL for staging and production (3 processes x 15 = 45, "
                  "plenty of headroom under 100 with Metabase). Re-ran k6 against staging: no errors, p95 went from "
                  "timeouts to 212 ms.",
                  [Bash("ssh deploy@fern-vps-1 \"cd /srv/lantern-staging && sed -i 's/connection_limit=5/"
                        "connection_limit=15/' .env && docker compose up -d api worker\"",
                        " ✔ Container lantern-staging-api-1     Started\n"
                        " ✔ Container lantern-staging-api-2     Started\n"
                        " ✔ Container lantern-staging-worker-1  Started"),
                   Bash("k6 run loadtest/checkout.js -e BASE_URL=https://api.staging.kettlefern.com",
                        "     checks.........................: 100.00% ✓ 26814  ✗ 0\n"
                        "     http_req_duration..............: avg=71.3ms  p(95)=212.4ms\n"
                        "     http_req_failed................: 0.00%   ✓ 0      ✗ 13407\n"
                        "     vus_max........................: 150")]),
        User("I have to stop here. What's left?"),
        Assistant("Refunds, Fastify 5 and the pool fix are on staging only; production still runs the previous "
                  "build, so the next step is the production deploy once Maria has approved the refund email copy "
                  "in Postmark. After that: delete the old Mailgun credentials and DNS records now that nothing "
                  "sends through them, add Sentry to the api and worker, and set up nightly pg_dump backups to the "
                  "Hetzner Storage Box.",
                  [Todo([("Refund status + refund-confirmation email", "completed"),
                         ("Upgrade to Fastify 5 (forced by @fastify/rate-limit 10)", "completed"),
                         ("Raise Prisma connection limit to 15", "completed"),
                         ("Maria approves refund email copy in Postmark", "in_progress"),
                         ("Deploy refunds + Fastify 5 to production", "pending"),
                         ("Delete old Mailgun credentials and DNS records", "pending"),
                         ("Add Sentry to api and worker", "pending"),
                         ("Nightly pg_dump backups to the Hetzner Storage Box", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    # values that changed
    ("Which port does the API listen on now?", ["4100"], ["port 3000", "0.0.0.0:3000"]),
    ("If I run pnpm dev, where do I point curl?", ["4100"], ["port 3000", "0.0.0.0:3000"]),
    ("Why couldn't the API keep its original port on the server?", ["storefront"], []),
    ("What's the staging API's hostname?", ["api.staging.kettlefern.com"], ["staging.api.kettlefern.com"]),
    ("Why does the staging host have to be under that particular subdomain?", ["wildcard cert"], []),
    ("What base image do our Docker builds use?", ["node:20-bookworm-slim"], ["node:20-alpine"]),
    ("Why did we give up on Alpine for the image?", ["libssl.so.1.1", "musl"], []),
    ("Which pnpm version is the project pinned to?", ["9.12.1"], ["8.15.4"]),
    ("What broke that made us upgrade pnpm?", ["ERR_PNPM_LOCKFILE_BREAKING_CHANGE", "lockfileVersion '9.0'"], []),
    ("Which service sends our transactional emails these days?", ["Postmark", "postmark"],
     ["smtp.mailgun.org", "nodemailer"]),
    ("Why did we leave Mailgun?", ["spam", "shared IP"], []),
    ("How many times does a notification job get retried before it's marked failed?", ["attempts: 8", "8 attempts"],
     ["attempts: 3"]),
    ("Why did we lengthen the job retries?", ["incident", "ETIMEDOUT"], []),
    ("What's the backoff between email job retries?", ["exponential", "30s, 1m, 2m"], ["fixed 5 second backoff"]),
    ("How many requests per minute can one IP make?", ["300"], ["max: 100"]),
    ("What runs the periodic jobs like the cart reminders now?", ["upsertJobScheduler", "job scheduler"],
     ["node-cron"]),
    ("Why did we get rid of node-cron?", ["twice", "replicas: 2", "both replicas"], []),
    ("When does Maria get the low stock email?", ["30 6 * * 1-5", "Weekdays 6:30"], ["0 2 * * *"]),
    ("Which timezone is the stock digest schedule in?", ["Europe/Berlin"], []),
    ("How long do we remember a Stripe event id to drop duplicates?", ["72 hours", "259200"], ["EX 86400"]),
    ("Why was the Stripe dedupe window extended?", ["up to 3 days"], []),
    ("How long is a password reset link good for?", ["15 minutes", "15 * 60 * 1000"], ["1 hour", "60 * 60 * 1000"]),
    ("Who asked for the shorter reset link lifetime?", ["Lukas", "security review"], []),
    ("Which Fastify major are we on?", ["fastify 5.1.0", "Fastify 5"], ["4.28.1"]),
    ("What forced the Fastify upgrade?", ["expected '5.x' fastify version", "@fastify/rate-limit 10"], []),
    ("What did the Fastify upgrade break in our code?", ["getResponseTime", "elapsedTime"], []),
    ("How many DB connections does each process get from Prisma?", ["connection_limit=15"], ["connection_limit=5"]),
    ("Why didn't we go with 25 connections per process?", ["max_connections 100", "Metabase"], []),
    ("What was behind the 500s during the load test?", ["P2024", "Timed out fetching a new connection"], []),
    ("Which BullMQ version do we need for the schedulers?", ["5.16", "5.21.2"], ["5.12.10"]),
    # preferences and corrections
    ("What do we use for request validation schemas?", ["TypeBox"], ["zod"]),
    ("Why not zod?", ["conversion layer"], []),
    ("What's the rule on default exports?", ["no default exports"], []),
    ("Is it OK to send an email directly inside a route handler?", ["Never send email from a request handler",
                                                                    "enqueue"], []),
    ("Where should the worker run?", ["own process", "separate entry point"], []),
    ("How should Docker images be tagged?", ["git SHA", "github.sha"], []),
    ("When do database migrations run on deploy?", ["prisma migrate deploy", "separate step"], []),
    ("How should money amounts be stored?", ["integer cents", "in cents"], []),
    ("How do I write commit messages here?", ["Conventional commits", "feat:/fix:/chore:"], []),
    ("Should tests mock Prisma?", ["real Postgres", "don't mock Prisma"], []),
    # commands, errors and fixes
    ("How do I run the test suite?", ["pnpm test"], []),
    ("I pulled new migrations and tests blow up, what do I run first?", ["pnpm test:db"], []),
    ("How do I trigger a staging deploy manually?", ["gh workflow run deploy.yml -f environment=staging"], []),
    ("How do I list the scheduled jobs and when they fire next?", ["pnpm tsx scripts/schedules.ts"], []),
    ("What did the linter complain about and how was it fixed?", ["no-floating-promises", "await notificationsQueue"],
     []),
    ("The worker wouldn't start the first time, what was wrong?", ["maxRetriesPerRequest", "null"], []),
    ("Why were the Stripe webhook signatures failing locally?", ["raw request body", "rawBody"], []),
    ("What made the tests fail intermittently when run together?", ["fileParallelism", "truncate the same tables"],
     []),
    ("Why did the first CI deploy fail?", ["ERR_PNPM_OUTDATED_LOCKFILE", "lockfile change never got committed"], []),
    ("What warning did BullMQ print about Redis and what did we change?", ["noeviction", "allkeys-lru"], []),
    ("How do the job tests avoid sending real emails?", ["POSTMARK_API_TEST"], []),
    ("Why did the first migration fail?", ["P1001", "wasn't running"], []),
    ("How are password reset tokens stored?", ["SHA-256", "sha256"], []),
    ("Where do the email templates live now?", ["in Postmark", "alias"], []),
    # open work
    ("What's still open?", ["Sentry", "pg_dump", "Delete old Mailgun credentials"], []),
    ("Is the refund work live in production yet?", ["staging only", "production still runs the previous build"], []),
    ("What are we waiting on before the production deploy?", ["refund email copy", "Maria approves"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": ["4100", "Postmark", ("attempts: 8", "8 attempts"), ("30 6 * * 1-5", "Weekdays 6:30"),
              ("Sentry", "pg_dump", "production deploy")],
    "stale": ["port 3000", "0.0.0.0:3000", "staging.api.kettlefern.com", "node:20-alpine", "smtp.mailgun.org",
              "nodemailer", "node-cron", "0 2 * * *", "EX 86400", "connection_limit=5", "attempts: 3"],
}
