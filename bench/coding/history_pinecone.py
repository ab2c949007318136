"""History I (held out): nine weeks of Claude Code sessions on "pinecone", a vet clinic booking backend on the JVM.

pinecone is the booking service for Hollybrook Vets, six veterinary clinics around Bristol: a Spring Boot 3 REST
service in Kotlin built with Gradle (Kotlin DSL), PostgreSQL 16 with Flyway migrations, Spring Data JPA/Hibernate,
Redis as the cache, Kafka (a shared MSK cluster) for appointment reminders that go out as SMS through Esendex,
JUnit 5 with Testcontainers, Keycloak for staff login, Docker, deployed to AWS ECS Fargate by GitHub Actions with
Terraform, and Datadog for metrics. Over seven sessions values change in varied ways: the local server port (forced
by Keycloak on 8080), spring.jpa.open-in-view (warning in one session, switched off in the next), ddl-auto (the user
states the rule), the HikariCP pool (10, then 20 after a load test, then 12 after Postgres ran out of connections
during a deploy), the availability cache TTL ("make it 5 minutes"), the mocking library (Mockito's problems raised in
one session, MockK done in the next), the reminders Kafka topic (renamed for the platform team's naming rule), the
attachments S3 bucket (corrected by the user), the Flyway baseline version (forced by a failed staging migration), the
ECS task memory, CPU and JVM heap flags (after an OOM kill), the Spring Boot version (forced by a CVE, which drags in
a Flyway module), RestTemplate replaced by RestClient, the public availability rate limit, the reminder cron (reason
in one session, the new time in the next, with a five-field cron the user's app rejected), the consumer retry
backoff, the ECS desired count and the waitlist feature flag. Commands fail and are fixed, the user corrects the
assistant and states rules, and the last session ends with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers, the
file layout of history F and the head of bench/coding_memory.py were read), so it checks that recall generalises to
a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "pinecone"

_GRADLE = (
    "plugins {\n"
    "    id(\"org.springframework.boot\") version \"3.1.5\"\n"
    "    id(\"io.spring.dependency-management\") version \"1.1.3\"\n"
    "    kotlin(\"jvm\") version \"1.9.20\"\n"
    "    kotlin(\"plugin.spring\") version \"1.9.20\"\n"
    "    kotlin(\"plugin.jpa\") version \"1.9.20\"\n"
    "    id(\"org.jlleitschuh.gradle.ktlint\") version \"11.6.1\"\n"
    "}\n\n"
    "group = \"uk.co.hollybrook\"\n\nkotlin { jvmToolchain(17) }\n\n"
    "dependencies {\n"
    "    implementation(\"org.springframework.boot:spring-boot-starter-web\")\n"
    "    implementation(\"org.springframework.boot:spring-boot-starter-data-jpa\")\n"
    "    implementation(\"org.springframework.boot:spring-boot-starter-data-redis\")\n"
    "    implementation(\"org.springframework.boot:spring-boot-starter-oauth2-resource-server\")\n"
    "    implementation(\"org.springframework.kafka:spring-kafka\")\n"
    "    implementation(\"org.flywaydb:flyway-core\")\n"
    "    implementation(\"com.fasterxml.jackson.module:jackson-module-kotlin\")\n"
    "    implementation(\"com.bucket4j:bucket4j-core:8.7.0\")\n"
    "    runtimeOnly(\"org.postgresql:postgresql\")\n"
    "    testImplementation(\"org.springframework.boot:spring-boot-starter-test\")\n"
    "    testImplementation(\"org.mockito.kotlin:mockito-kotlin:5.1.0\")\n"
    "    testImplementation(\"org.springframework.boot:spring-boot-testcontainers\")\n"
    "    testImplementation(\"org.testcontainers:postgresql\")\n"
    "    testImplementation(\"org.testcontainers:kafka\")\n"
    "    testRuntimeOnly(\"com.h2database:h2\")\n"
    "}\n"
)

_APP_YML = (
    "server:\n  port: 8080\n\n"
    "spring:\n  application:\n    name: pinecone\n"
    "  datasource:\n    url: jdbc:postgresql://localhost:5432/pinecone\n    username: pinecone\n"
    "    hikari:\n      maximum-pool-size: 10\n"
    "  jpa:\n    hibernate:\n      ddl-auto: update\n"
    "  flyway:\n    baseline-on-migrate: true\n    baseline-version: 1\n"
    "  kafka:\n    bootstrap-servers: localhost:9092\n"
    "\npinecone:\n  kafka:\n    reminders-topic: appointment-reminders\n    reminder-group: reminder-sender\n"
)

SESSIONS = [
    ("pc1-local-setup", 61, [
        User("I'm taking over pinecone, the booking backend for the Hollybrook Vets clinics (six clinics around "
             "Bristol). Get it running locally. Postgres, Redis, Kafka and Keycloak all come from docker compose, "
             "I don't want any of them installed on the Mac."),
        Assistant("I'll look at the build and the existing compose file first, then bring the stack up and start "
                  "the app.",
                  [Read("build.gradle.kts", _GRADLE),
                   Read("docker-compose.yml",
                        "services:\n  postgres:\n    image: postgres:16\n    environment:\n"
                        "      POSTGRES_USER: pinecone\n      POSTGRES_PASSWORD: pinecone\n    ports:\n"
                        "      - \"5432:5432\"\n  redis:\n    image: redis:7\n    ports:\n      - \"6379:6379\"\n"
                        "  kafka:\n    image: bitnami/kafka:3.6\n    environment:\n"
                        "      KAFKA_CFG_NODE_ID: 0\n      KAFKA_CFG_PROCESS_ROLES: controller,broker\n"
                        "    ports:\n      - \"9092:9092\"\n  keycloak:\n    image: quay.io/keycloak/keycloak:24.0\n"
                        "    command: start-dev --import-realm\n    ports:\n      - \"8080:8080\"\n"),
                   Read("src/main/resources/application.yml", _APP_YML),
                   Bash("docker compose up -d",
                        "[+] Running 5/5\n ✔ Network pinecone_default      Created\n"
                        " ✔ Container pinecone-postgres-1  Started\n ✔ Container pinecone-redis-1     Started\n"
                        " ✔ Container pinecone-kafka-1     Started\n ✔ Container pinecone-keycloak-1  Started"),
                   Bash("./gradlew bootRun",
                        "  .   ____          _            __ _ _\n :: Spring Boot ::                (v3.1.5)\n\n"
                        "WARN  o.s.b.a.o.j.JpaBaseConfiguration$JpaWebConfiguration : spring.jpa.open-in-view is "
                        "enabled by default. Therefore, database queries may be performed during view rendering. "
                        "Explicitly configure spring.jpa.open-in-view to disable this warning\n"
                        "***************************\nAPPLICATION FAILED TO START\n***************************\n\n"
                        "Description:\n\nWeb server failed to start. Port 8080 was already in use.\n\n"
                        "FAILURE: Build failed with an exception.", ok=False)]),
        Assistant("bootRun failed because Keycloak from the compose file already listens on 8080, which is also "
                  "Spring's default. Keycloak's redirect URIs in the imported realm point at localhost:8080, so "
                  "it's simpler to move the app: I set server.port to 8081 in application.yml. The app now starts "
                  "and answers on http://localhost:8081/actuator/health.",
                  [Edit("src/main/resources/application.yml", "server:\n  port: 8080\n", "server:\n  port: 8081\n"),
                   Bash("./gradlew bootRun",
                        "INFO  o.s.b.w.e.tomcat.TomcatWebServer : Tomcat started on port(s): 8081 (http)\n"
                        "INFO  u.c.h.pinecone.PineconeApplicationKt : Started PineconeApplicationKt in 7.9 seconds"),
                   Bash("curl -s localhost:8081/actuator/health", "{\"status\":\"UP\"}")]),
        User("Fine with 8081. What's that open-in-view warning in the log about?"),
        Assistant("With open-in-view on (Spring Boot's default) the Hibernate session stays open for the whole HTTP "
                  "request, so lazy associations get loaded while Jackson serialises the response. It hides N+1 "
                  "queries and holds a pooled connection for the entire request. I'd turn it off, but some "
                  "controllers probably rely on lazy loading during serialisation and will start throwing "
                  "LazyInitializationException, so I'd rather do it once the test suite is green."),
        User("Agreed, tests first."),
        Assistant("The test run failed before a single test ran: Testcontainers can't find Docker, because Docker "
                  "here runs in Colima and there is no /var/run/docker.sock. I pointed Testcontainers at Colima's "
                  "socket in ~/.testcontainers.properties and set TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE so the Ryuk "
                  "container mounts the right path. Second run: 186 tests, 3 failures, all in the repository tests "
                  "that use the H2 test profile. H2 doesn't understand the tstzrange exclusion constraint that stops "
                  "two appointments overlapping for one vet.",
                  [Bash("./gradlew test",
                        "AppointmentRepositoryTest > initializationError FAILED\n"
                        "    java.lang.IllegalStateException: Could not find a valid Docker environment. Please see "
                        "logs and check configuration\n\nFAILURE: Build failed with an exception.", ok=False),
                   Write("~/.testcontainers.properties",
                         "docker.host=unix:///Users/mara/.colima/default/docker.sock\n"),
                   Bash("export TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE=/var/run/docker.sock && ./gradlew test",
                        "VetScheduleRepositoryTest > rejects overlapping appointments() FAILED\n"
                        "    org.h2.jdbc.JdbcSQLSyntaxErrorException: Unknown data type: \"TSTZRANGE\"\n"
                        "186 tests completed, 3 failed\n\nFAILURE: Build failed with an exception.", ok=False)]),
        User("Never use H2. Every test that touches the database runs against real Postgres through Testcontainers, "
             "same major version as prod. Delete the H2 profile."),
        Assistant("Done. I removed the H2 dependency and application-test.yml, and added an AbstractIntegrationTest "
                  "base class that starts one shared postgres:16-alpine container with @ServiceConnection, so every "
                  "repository and integration test gets a real Postgres 16. All 186 tests pass.",
                  [Edit("build.gradle.kts", "    testRuntimeOnly(\"com.h2database:h2\")\n", ""),
                   Bash("git rm -q src/test/resources/application-test.yml", ""),
                   Write("src/test/kotlin/uk/co/hollybrook/pinecone/AbstractIntegrationTest.kt",
                         "@SpringBootTest\n@Testcontainers\nabstract class AbstractIntegrationTest {\n"
                         "    companion object {\n        @Container\n        @ServiceConnection\n"
                         "        @JvmStatic\n"
                         "        val postgres = PostgreSQLContainer(\"postgres:16-alpine\")\n    }\n}\n"),
                   Bash("./gradlew test",
                        "186 tests completed, 0 failed\n\nBUILD SUCCESSFUL in 1m 52s")]),
        User("One more thing I just noticed: ddl-auto is on update. That's how prod's schema drifted from the "
             "migrations. Flyway owns the schema. Set it to validate, and never let Hibernate change the schema "
             "again. Every schema change is a hand-written Flyway migration."),
        Assistant("Set spring.jpa.hibernate.ddl-auto to validate. On the next start Hibernate's validation found "
                  "a column the entity has but no migration ever created: appointments.reminder_sent_at, which "
                  "update had quietly added. I wrote V9__add_reminder_sent_at.sql by hand; the app starts "
                  "cleanly and the tests still pass.",
                  [Edit("src/main/resources/application.yml", "      ddl-auto: update\n", "      ddl-auto: validate\n"),
                   Bash("./gradlew bootRun",
                        "ERROR o.s.b.SpringApplication : Application run failed\n"
                        "org.hibernate.tool.schema.spi.SchemaManagementException: Schema-validation: missing "
                        "column [reminder_sent_at] in table [appointments]", ok=False),
                   Write("src/main/resources/db/migration/V9__add_reminder_sent_at.sql",
                         "ALTER TABLE appointments ADD COLUMN reminder_sent_at timestamptz;\n"),
                   Bash("./gradlew bootRun",
                        "INFO  o.f.core.internal.command.DbMigrate : Migrating schema \"public\" to version "
                        "\"9 - add reminder sent at\"\n"
                        "INFO  o.s.b.w.e.tomcat.TomcatWebServer : Tomcat started on port(s): 8081 (http)")]),
        User("How do I start everything from scratch next time?"),
        Assistant("From the repo root: docker compose up -d for Postgres, Redis, Kafka and Keycloak, then "
                  "./gradlew bootRun --args='--spring.profiles.active=local' (the app is on port 8081, Keycloak "
                  "admin on 8080). Tests: ./gradlew test, with TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE="
                  "/var/run/docker.sock exported (I added it to .envrc so direnv sets it)."),
    ]),
    ("pc2-lazy-loading-pool", 54, [
        User("Tests are green, so turn open-in-view off now."),
        Assistant("I set spring.jpa.open-in-view: false. As expected, three controller tests broke with "
                  "LazyInitializationException: GET /api/appointments/{id} serialises the pet's vaccinations and "
                  "the vet, which were lazy-loaded during rendering. I added a findDetailedById query with an "
                  "@EntityGraph for pet, pet.vaccinations and vet, and the controller uses it. Tests are green "
                  "and the endpoint now runs 1 query instead of 4.",
                  [Edit("src/main/resources/application.yml", "  jpa:\n    hibernate:\n",
                        "  jpa:\n    open-in-view: false\n    hibernate:\n"),
                   Bash("./gradlew test",
                        "AppointmentControllerTest > returns appointment with pet details() FAILED\n"
                        "    org.hibernate.LazyInitializationException: failed to lazily initialize a collection "
                        "of role: uk.co.hollybrook.pinecone.pet.Pet.vaccinations: could not initialize proxy - "
                        "no Session\n186 tests completed, 3 failed", ok=False),
                   Edit("src/main/kotlin/uk/co/hollybrook/pinecone/appointment/AppointmentRepository.kt",
                        "interface AppointmentRepository : JpaRepository<Appointment, Long> {\n",
                        "interface AppointmentRepository : JpaRepository<Appointment, Long> {\n"
                        "    @EntityGraph(attributePaths = [\"pet\", \"pet.vaccinations\", \"vet\"])\n"
                        "    @Query(\"select a from Appointment a where a.id = :id\")\n"
                        "    fun findDetailedById(id: Long): Appointment?\n"),
                   Bash("./gradlew test", "186 tests completed, 0 failed\n\nBUILD SUCCESSFUL in 1m 49s")]),
        User("Always run ./gradlew ktlintCheck test before you tell me something is done. CI runs ktlint and I'm "
             "tired of red builds over formatting."),
        Assistant("Will do: ktlintCheck and test both, every time, before I report something as finished. "
                  "ktlintCheck found two issues in the repository change (import ordering, a trailing comma); "
                  "I fixed them with ./gradlew ktlintFormat and both tasks pass.",
                  [Bash("./gradlew ktlintCheck test",
                        "AppointmentRepository.kt:3:1 Imports must be ordered in lexicographic order\n"
                        "AppointmentRepository.kt:14:63 Missing trailing comma before \")\"\n"
                        "> Task :ktlintMainSourceSetCheck FAILED", ok=False),
                   Bash("./gradlew ktlintFormat && ./gradlew ktlintCheck test",
                        "BUILD SUCCESSFUL in 1m 58s")]),
        User("Now the Monday morning problem. When the phone lines open at 8 everybody books at once and the "
             "booking page times out. There's a k6 script in load/. Run it against local."),
        Assistant("Reproduced it. At 150 virtual users 7.4% of requests fail, and the app log is full of Hikari "
                  "timeouts: the pool is at the default 10 connections, and POST /api/appointments holds its "
                  "connection while it takes the advisory lock on the vet's schedule. The database itself is "
                  "nowhere near busy (CPU under 20%). I'd raise the pool to 20.",
                  [Bash("k6 run load/booking-peak.js",
                        "     http_req_duration..............: avg=2.1s  p(95)=30s\n"
                        "     http_req_failed................: 7.40%  ✓ 1332  ✗ 16668\n"
                        "     vus_max........................: 150"),
                   Bash("grep -c 'Connection is not available' build/bootRun.log",
                        "1288\n"
                        "HikariPool-1 - Connection is not available, request timed out after 30000ms.")]),
        User("Do it, 20."),
        Assistant("The pool is now 20 (spring.datasource.hikari.maximum-pool-size). Same k6 run: 0% failed, "
                  "p95 180ms.",
                  [Edit("src/main/resources/application.yml", "      maximum-pool-size: 10\n",
                        "      maximum-pool-size: 20\n"),
                   Bash("k6 run load/booking-peak.js",
                        "     http_req_duration..............: avg=64ms  p(95)=180ms\n"
                        "     http_req_failed................: 0.00%  ✓ 0     ✗ 18022")]),
        User("While you're in there: the public availability endpoint hits Postgres on every call. Cache it in "
             "Redis. Half an hour is fine, slots don't change that often."),
        Assistant("Added Redis caching for AvailabilityService.availableSlots, keyed by clinic and date. The TTL "
                  "comes from pinecone.cache.availability-ttl (a Duration, currently PT30M) and is applied to the "
                  "availability cache in a RedisCacheManagerBuilderCustomizer. Values are serialised as JSON with "
                  "the Kotlin module so the cache survives class reloads. A repeated request for the same clinic "
                  "and day now takes 4ms instead of 95ms.",
                  [Write("src/main/kotlin/uk/co/hollybrook/pinecone/config/CacheConfig.kt",
                         "@Configuration\n@EnableCaching\nclass CacheConfig(\n"
                         "    @Value(\"\\${pinecone.cache.availability-ttl}\") private val availabilityTtl: Duration,\n"
                         ") {\n    @Bean\n    fun cacheCustomizer() = RedisCacheManagerBuilderCustomizer { builder ->\n"
                         "        builder.withCacheConfiguration(\n            \"availability\",\n"
                         "            RedisCacheConfiguration.defaultCacheConfig().entryTtl(availabilityTtl),\n"
                         "        )\n    }\n}\n"),
                   Edit("src/main/resources/application.yml", "pinecone:\n",
                        "pinecone:\n  cache:\n    availability-ttl: PT30M\n"),
                   Edit("src/main/kotlin/uk/co/hollybrook/pinecone/availability/AvailabilityService.kt",
                        "    fun availableSlots(clinicId: Long, date: LocalDate): List<Slot> {\n",
                        "    @Cacheable(\"availability\", key = \"#clinicId + ':' + #date\")\n"
                        "    fun availableSlots(clinicId: Long, date: LocalDate): List<Slot> {\n"),
                   Bash("./gradlew ktlintCheck test", "190 tests completed, 0 failed\n\nBUILD SUCCESSFUL in 2m 3s")]),
        User("The mockito-kotlin stubs in AvailabilityServiceTest are a mess. Half the any() matchers need a type "
             "parameter or they hit the null-safety check on non-null params, and final classes need the inline "
             "mock maker. I want MockK everywhere. But not today, we're mid-feature. Next session."),
        Assistant("Noted. I'll leave mockito-kotlin in place for now and migrate all the tests to MockK (with "
                  "springmockk for @MockkBean) at the start of the next session.",
                  [Todo([("Turn off open-in-view and fix lazy loading", "completed"),
                         ("Raise the Hikari pool after the k6 run", "completed"),
                         ("Cache availability in Redis", "completed"),
                         ("Replace mockito-kotlin with MockK in all tests", "pending")])]),
    ]),
    ("pc3-mockk-cache-topic", 45, [
        User("Do the MockK migration."),
        Assistant("Swapped the dependency: mockito-kotlin is gone, io.mockk:mockk 1.13.10 and "
                  "com.ninja-squad:springmockk 4.0.2 are in. I rewrote the 23 test classes that used Mockito "
                  "(whenever becomes every, verify becomes verify with MockK's block syntax, @MockBean becomes "
                  "@MockkBean). One test failed on an unstubbed call to SmsClient.send, so I made that mock "
                  "relaxed; everything passes.",
                  [Edit("build.gradle.kts",
                        "    testImplementation(\"org.mockito.kotlin:mockito-kotlin:5.1.0\")\n",
                        "    testImplementation(\"io.mockk:mockk:1.13.10\")\n"
                        "    testImplementation(\"com.ninja-squad:springmockk:4.0.2\")\n"),
                   Bash("grep -rl 'org.mockito' src/test | wc -l", "23"),
                   Bash("./gradlew test",
                        "ReminderServiceTest > sends sms for tomorrow's appointments() FAILED\n"
                        "    io.mockk.MockKException: no answer found for SmsClient(#3).send(SmsMessage(to=+44"
                        "7700900123, body=Reminder: Biscuit has an appointment...))\n"
                        "214 tests completed, 1 failed", ok=False),
                   Edit("src/test/kotlin/uk/co/hollybrook/pinecone/reminder/ReminderServiceTest.kt",
                        "    private val smsClient = mockk<SmsClient>()\n",
                        "    private val smsClient = mockk<SmsClient>(relaxed = true)\n"),
                   Bash("./gradlew ktlintCheck test", "214 tests completed, 0 failed\n\nBUILD SUCCESSFUL")]),
        User("No. Don't make mocks relaxed to paper over a missing stub, that's exactly how the Mockito tests ended "
             "up asserting nothing. Stub what's called, and verify it."),
        Assistant("Reverted the relaxed mock. ReminderServiceTest now stubs the call with justRun { "
                  "smsClient.send(any()) } and verifies it with verify(exactly = 1). No relaxed mocks anywhere in "
                  "the suite; I checked with grep. ktlintCheck and test pass.",
                  [Edit("src/test/kotlin/uk/co/hollybrook/pinecone/reminder/ReminderServiceTest.kt",
                        "    private val smsClient = mockk<SmsClient>(relaxed = true)\n",
                        "    private val smsClient = mockk<SmsClient>()\n\n    @BeforeEach\n"
                        "    fun stubs() {\n        justRun { smsClient.send(any()) }\n    }\n"),
                   Bash("grep -rn 'relaxed = true' src/test", ""),
                   Bash("./gradlew ktlintCheck test", "214 tests completed, 0 failed\n\nBUILD SUCCESSFUL in 2m 1s")]),
        User("The receptionists say that when someone cancels, the slot doesn't come back online for ages and "
             "they end up phoning people to tell them it's free. Make the availability cache 5 minutes. And throw "
             "the clinic's entries away when an appointment is cancelled."),
        Assistant("The availability TTL is now PT5M, and AppointmentService.cancel evicts the cached availability "
                  "for that clinic and date with @CacheEvict, so a cancelled slot shows up on the next request "
                  "rather than after the TTL. New test: cancel, then availableSlots contains the slot again.",
                  [Edit("src/main/resources/application.yml", "    availability-ttl: PT30M\n",
                        "    availability-ttl: PT5M\n"),
                   Edit("src/main/kotlin/uk/co/hollybrook/pinecone/appointment/AppointmentService.kt",
                        "    fun cancel(appointment: Appointment) {\n",
                        "    @CacheEvict(\"availability\", key = \"#appointment.clinicId + ':' + #appointment.date\")\n"
                        "    fun cancel(appointment: Appointment) {\n"),
                   Bash("./gradlew ktlintCheck test", "215 tests completed, 0 failed\n\nBUILD SUCCESSFUL")]),
        User("Message from the platform team: on the shared MSK cluster every topic must start with the team's "
             "name and end in a version. From next month the ACLs only allow pinecone.* for our principal. So "
             "appointment-reminders has to become pinecone.reminders.v1, and the consumer group needs the prefix "
             "too."),
        Assistant("Renamed both in application.yml: the topic is pinecone.reminders.v1 and the consumer group is "
                  "pinecone.reminder-sender. The producer and the @KafkaListener read them from "
                  "pinecone.kafka.*, so no code changed. The Kafka Testcontainers test publishes to the new topic "
                  "and the listener picks it up. The old appointment-reminders topic should stay until its "
                  "consumer lag is zero in prod, then be deleted.",
                  [Edit("src/main/resources/application.yml",
                        "    reminders-topic: appointment-reminders\n    reminder-group: reminder-sender\n",
                        "    reminders-topic: pinecone.reminders.v1\n    reminder-group: pinecone.reminder-sender\n"),
                   Bash("./gradlew test --tests '*ReminderKafkaIT'",
                        "ReminderKafkaIT > listener sends sms for published reminder() PASSED\n\nBUILD SUCCESSFUL")]),
        User("Do we create that topic from the app?"),
        Assistant("Yes, at the moment: KafkaConfig declares a NewTopic bean, so KafkaAdmin creates the topic on "
                  "startup if it's missing (3 partitions, replication 1)."),
        User("Take that out. Topics are owned by the platform team's terraform repo. Never create topics from the "
             "app; a new topic or a rename goes through their repo first."),
        Assistant("Removed the NewTopic bean and set spring.kafka.admin.auto-create: false, so the app never tries "
                  "to create topics. For local and tests, docker compose creates pinecone.reminders.v1 with a "
                  "kafka-topics.sh init container, and ReminderKafkaIT creates it through the AdminClient in its "
                  "setup.",
                  [Edit("src/main/resources/application.yml", "  kafka:\n    bootstrap-servers: localhost:9092\n",
                        "  kafka:\n    bootstrap-servers: localhost:9092\n    admin:\n      auto-create: false\n"),
                   Bash("./gradlew ktlintCheck test", "215 tests completed, 0 failed\n\nBUILD SUCCESSFUL")]),
        User("Remind me how the reminders actually get sent."),
        Assistant("ReminderScheduler runs @Scheduled(cron = \"0 0 8 * * *\", zone = \"Europe/London\"), every day "
                  "at 08:00, selects today's appointments with reminder_sent_at null, and publishes one message per "
                  "appointment to pinecone.reminders.v1. ReminderListener consumes them and calls EsendexSmsClient, "
                  "which posts to Esendex's REST API with a RestTemplate. Failures are retried by the "
                  "DefaultErrorHandler with FixedBackOff(1000L, 3) (three retries one second apart) and then go "
                  "to pinecone.reminders.v1.DLT via the DeadLetterPublishingRecoverer.",
                  [Read("src/main/kotlin/uk/co/hollybrook/pinecone/reminder/ReminderScheduler.kt",
                        "@Component\nclass ReminderScheduler(\n    private val appointments: AppointmentRepository,\n"
                        "    private val publisher: ReminderPublisher,\n    private val clock: Clock,\n) {\n"
                        "    @Scheduled(cron = \"0 0 8 * * *\", zone = \"Europe/London\")\n"
                        "    fun sendTodaysReminders() {\n"
                        "        appointments.findUnremindedOn(LocalDate.now(clock)).forEach(publisher::publish)\n"
                        "    }\n}\n"),
                   Read("src/main/kotlin/uk/co/hollybrook/pinecone/reminder/KafkaConsumerConfig.kt",
                        "    @Bean\n    fun errorHandler(template: KafkaTemplate<String, Any>) =\n"
                        "        DefaultErrorHandler(DeadLetterPublishingRecoverer(template), "
                        "FixedBackOff(1000L, 3))\n")]),
    ]),
    ("pc4-ecs-deploy", 36, [
        User("Time to ship it to AWS. The Terraform for ECS Fargate is in infra/, somebody started it and never "
             "finished. Set up the service and a GitHub Actions deploy."),
        Assistant("infra/ already has the cluster, the ALB and a task definition for the service; what's missing "
                  "is the image build and the deploy. I wrote a Dockerfile on eclipse-temurin:17-jre with the "
                  "Datadog Java agent, and .github/workflows/deploy.yml, which builds with Gradle, pushes to ECR "
                  "and updates the ECS service for the chosen environment. The task definition is sized "
                  "cpu = 512, memory = 1024, desired_count = 2. For x-ray attachments I set "
                  "pinecone.attachments.bucket to pinecone-attachments-prod.",
                  [Read("infra/ecs.tf",
                        "resource \"aws_ecs_task_definition\" \"pinecone\" {\n  family                   = "
                        "\"pinecone\"\n  requires_compatibilities = [\"FARGATE\"]\n  network_mode             = "
                        "\"awsvpc\"\n  cpu                      = 512\n  memory                   = 1024\n}\n\n"
                        "resource \"aws_ecs_service\" \"pinecone\" {\n  name            = \"pinecone\"\n"
                        "  desired_count   = 2\n  launch_type     = \"FARGATE\"\n"
                        "  deployment_maximum_percent = 200\n}\n"),
                   Write("Dockerfile",
                         "FROM eclipse-temurin:17-jre\nWORKDIR /app\n"
                         "ADD https://dtdg.co/latest-java-tracer /app/dd-java-agent.jar\n"
                         "COPY build/libs/pinecone.jar /app/pinecone.jar\n"
                         "ENV JAVA_OPTS=\"-Xmx768m -javaagent:/app/dd-java-agent.jar\"\n"
                         "ENTRYPOINT [\"sh\", \"-c\", \"exec java $JAVA_OPTS -jar /app/pinecone.jar\"]\n"),
                   Write(".github/workflows/deploy.yml",
                         "name: deploy\non:\n  workflow_dispatch:\n    inputs:\n      environment:\n"
                         "        type: choice\n        options: [staging, prod]\njobs:\n  deploy:\n"
                         "    environment: ${{ inputs.environment }}\n    runs-on: ubuntu-latest\n    steps:\n"
                         "      - uses: actions/checkout@v4\n      - run: ./gradlew ktlintCheck test bootJar\n"
                         "      - uses: aws-actions/amazon-ecr-login@v2\n"
                         "      - run: ./deploy/push-and-update.sh ${{ inputs.environment }}\n"),
                   Edit("src/main/resources/application-prod.yml", "pinecone:\n",
                        "pinecone:\n  attachments:\n    bucket: pinecone-attachments-prod\n")]),
        User("Wrong bucket. We don't create our own buckets; the clinic group's IT team made one for us: "
             "pinecone-prod-vet-attachments. X-rays go under the xrays/ prefix in it."),
        Assistant("Fixed: pinecone.attachments.bucket is pinecone-prod-vet-attachments and the key prefix is "
                  "xrays/. AttachmentStorage builds keys as xrays/{clinicId}/{appointmentId}/{filename}. I also "
                  "removed the aws_s3_bucket resource I had started in infra/; the task role only gets "
                  "s3:GetObject and s3:PutObject on arn:aws:s3:::pinecone-prod-vet-attachments/xrays/*.",
                  [Edit("src/main/resources/application-prod.yml",
                        "    bucket: pinecone-attachments-prod\n",
                        "    bucket: pinecone-prod-vet-attachments\n    prefix: xrays/\n"),
                   Edit("infra/iam.tf", "resource \"aws_s3_bucket\" \"attachments\" {\n  bucket = "
                        "\"pinecone-attachments-prod\"\n}\n",
                        "data \"aws_iam_policy_document\" \"attachments\" {\n  statement {\n"
                        "    actions   = [\"s3:GetObject\", \"s3:PutObject\"]\n"
                        "    resources = [\"arn:aws:s3:::pinecone-prod-vet-attachments/xrays/*\"]\n  }\n}\n")]),
        User("Apply the terraform for staging. You can apply staging from here, but never run terraform apply "
             "against prod from a laptop. Prod only goes through the terraform workflow with the approval gate."),
        Assistant("Understood: staging may be applied locally, prod only via the terraform workflow and its "
                  "approval. Staging applied (9 added, 2 changed), then I triggered the deploy workflow for "
                  "staging. The deploy went out, but the new task stopped during startup: Flyway failed on "
                  "V2__vets.sql because the relation vets already exists. The staging RDS was restored from the "
                  "old PHP system's schema dump, which already matches our migrations up to V4. With "
                  "baseline-version: 1 Flyway baselines at V1 and then tries to run V2 to V4 again.",
                  [Bash("terraform -chdir=infra apply -var-file=staging.tfvars -auto-approve",
                        "Apply complete! Resources: 9 added, 2 changed, 0 destroyed."),
                   Bash("gh workflow run deploy.yml -f environment=staging && gh run watch",
                        "✓ deploy / deploy in 6m12s"),
                   Bash("aws logs tail /ecs/pinecone-staging --since 10m",
                        "INFO  o.f.core.internal.command.DbBaseline : Successfully baselined schema with version: 1\n"
                        "ERROR o.s.b.SpringApplication : Application run failed\n"
                        "org.flywaydb.core.internal.command.DbMigrate$FlywayMigrateException: Migration V2__vets.sql "
                        "failed\nSQL State  : 42P07\nMessage    : ERROR: relation \"vets\" already exists",
                        ok=False)]),
        User("Right, the dump is from V4. Fix the baseline."),
        Assistant("Set spring.flyway.baseline-version to 4. I dropped the half-written flyway_schema_history table "
                  "on staging first (it only held the V1 baseline row), redeployed, and Flyway baselined at 4 and "
                  "applied V5 to V9. The task reaches RUNNING and the ALB target is healthy.",
                  [Edit("src/main/resources/application.yml", "    baseline-version: 1\n", "    baseline-version: 4\n"),
                   Bash("psql \"$STAGING_DB_URL\" -c 'DROP TABLE flyway_schema_history'", "DROP TABLE"),
                   Bash("gh workflow run deploy.yml -f environment=staging && gh run watch",
                        "✓ deploy / deploy in 6m03s"),
                   Bash("aws logs tail /ecs/pinecone-staging --since 10m | grep -i flyway",
                        "Successfully baselined schema with version: 4\n"
                        "Successfully applied 5 migrations to schema \"public\", now at version v9")]),
        User("The staging tasks keep restarting though. Datadog shows a new task every few minutes."),
        Assistant("They're being OOM-killed. describe-tasks shows exit code 137 with \"OutOfMemoryError: Container "
                  "killed due to memory usage\". The heap is capped at 768 MB with -Xmx768m, but the container "
                  "limit is 1024 MB and the JVM needs more than the heap: metaspace (around 140 MB for this app), "
                  "thread stacks, the code cache, direct buffers for Lettuce and Kafka, and the Datadog agent. "
                  "That doesn't fit in the remaining 256 MB. I'd give the task 2048 MB and replace the fixed -Xmx "
                  "with -XX:MaxRAMPercentage=75.0, so the heap follows the container size.",
                  [Bash("aws ecs describe-tasks --cluster hollybrook-staging --tasks $(aws ecs list-tasks --cluster "
                        "hollybrook-staging --desired-status STOPPED --query 'taskArns[0]' --output text)",
                        "\"stoppedReason\": \"OutOfMemoryError: Container killed due to memory usage\",\n"
                        "\"containers\": [{\"name\": \"pinecone\", \"exitCode\": 137}]")]),
        User("Do it. Bump the cpu to 1024 as well, startup takes almost 90 seconds on half a vCPU and the health "
             "check grace period keeps catching it."),
        Assistant("Task definition is now cpu = 1024 and memory = 2048, and the Dockerfile uses "
                  "-XX:MaxRAMPercentage=75.0 instead of -Xmx768m. Applied to staging and redeployed: startup is "
                  "down to 38 seconds, and over the last hour no task has restarted; the heap peaks around 900 MB "
                  "in Datadog.",
                  [Edit("infra/ecs.tf", "  cpu                      = 512\n  memory                   = 1024\n",
                        "  cpu                      = 1024\n  memory                   = 2048\n"),
                   Edit("Dockerfile", "ENV JAVA_OPTS=\"-Xmx768m -javaagent:/app/dd-java-agent.jar\"\n",
                        "ENV JAVA_OPTS=\"-XX:MaxRAMPercentage=75.0 -javaagent:/app/dd-java-agent.jar\"\n"),
                   Bash("terraform -chdir=infra apply -var-file=staging.tfvars -auto-approve",
                        "Apply complete! Resources: 0 added, 1 changed, 0 destroyed."),
                   Bash("gh workflow run deploy.yml -f environment=staging && gh run watch",
                        "✓ deploy / deploy in 5m48s"),
                   Bash("aws logs tail /ecs/pinecone-staging --since 5m | grep Started",
                        "Started PineconeApplicationKt in 38.2 seconds (process running for 40.1)")]),
        User("Good. Prod next week once the clinic managers have tried staging."),
    ]),
    ("pc5-boot-upgrade", 27, [
        User("Dependabot flagged CVE-2024-22262 in spring-web, the UriComponentsBuilder open redirect. We do parse "
             "the redirect_uri from the booking widget with it. Fix it properly: upgrade Spring Boot, don't just "
             "pin spring-framework underneath an old Boot."),
        Assistant("The fix is in Spring Framework 6.1.6. I moved Spring Boot from 3.1.5 to 3.3.0 (which brings "
                  "6.1.8) and Kotlin from 1.9.20 to 1.9.24. The build failed on startup in every integration test: "
                  "Boot 3.3 brings Flyway 10, which moved database support into separate modules, so Flyway says "
                  "\"Unsupported Database: PostgreSQL 16.2\". Adding org.flywaydb:flyway-database-postgresql "
                  "fixes it. ktlintCheck and test pass.",
                  [Edit("build.gradle.kts",
                        "    id(\"org.springframework.boot\") version \"3.1.5\"\n"
                        "    id(\"io.spring.dependency-management\") version \"1.1.3\"\n"
                        "    kotlin(\"jvm\") version \"1.9.20\"\n"
                        "    kotlin(\"plugin.spring\") version \"1.9.20\"\n"
                        "    kotlin(\"plugin.jpa\") version \"1.9.20\"\n",
                        "    id(\"org.springframework.boot\") version \"3.3.0\"\n"
                        "    id(\"io.spring.dependency-management\") version \"1.1.5\"\n"
                        "    kotlin(\"jvm\") version \"1.9.24\"\n"
                        "    kotlin(\"plugin.spring\") version \"1.9.24\"\n"
                        "    kotlin(\"plugin.jpa\") version \"1.9.24\"\n"),
                   Bash("./gradlew test",
                        "AvailabilityControllerIT > initializationError FAILED\n"
                        "    org.flywaydb.core.api.FlywayException: Unsupported Database: PostgreSQL 16.2\n"
                        "215 tests completed, 41 failed", ok=False),
                   Edit("build.gradle.kts", "    implementation(\"org.flywaydb:flyway-core\")\n",
                        "    implementation(\"org.flywaydb:flyway-core\")\n"
                        "    implementation(\"org.flywaydb:flyway-database-postgresql\")\n"),
                   Bash("./gradlew dependencyInsight --dependency spring-web --configuration runtimeClasspath "
                        "| head -3",
                        "org.springframework:spring-web:6.1.8\n   Selected by rule"),
                   Bash("./gradlew ktlintCheck test", "215 tests completed, 0 failed\n\nBUILD SUCCESSFUL in 2m 11s")]),
        User("Now that we're past 3.2, replace the RestTemplate in EsendexSmsClient with RestClient. RestTemplate is "
             "in maintenance mode and I don't want new code written against it."),
        Assistant("EsendexSmsClient now uses a RestClient built from the auto-configured RestClient.Builder, with "
                  "the base URL and basic auth set once in the constructor. Non-2xx responses become "
                  "SmsSendException through onStatus, as before. The test binds MockRestServiceServer to the "
                  "builder, so it didn't need rewriting beyond the setup. Nothing else in main used RestTemplate.",
                  [Edit("src/main/kotlin/uk/co/hollybrook/pinecone/sms/EsendexSmsClient.kt",
                        "class EsendexSmsClient(private val restTemplate: RestTemplate, props: EsendexProperties) {\n",
                        "class EsendexSmsClient(builder: RestClient.Builder, props: EsendexProperties) {\n"
                        "    private val restClient = builder.baseUrl(props.baseUrl)\n"
                        "        .defaultHeaders { it.setBasicAuth(props.username, props.apiKey) }\n"
                        "        .build()\n"),
                   Bash("grep -rn RestTemplate src/main", ""),
                   Bash("./gradlew ktlintCheck test", "215 tests completed, 0 failed\n\nBUILD SUCCESSFUL")]),
        User("Someone is scraping /api/public/availability. 40k requests last night from a handful of IPs in the "
             "same range. What's the rate limit on that endpoint?"),
        Assistant("It's a Bucket4j filter keyed by client IP (from X-Forwarded-For, since we're behind the ALB), "
                  "configured as pinecone.rate-limit.public-availability.requests-per-minute: 100.",
                  [Read("src/main/resources/application.yml",
                        "  rate-limit:\n    public-availability:\n      requests-per-minute: 100\n")]),
        User("Way too generous, a real owner looks at maybe five days. 20 a minute per IP."),
        Assistant("The limit is now 20 per minute per IP. Request 21 within the minute gets 429 Too Many Requests "
                  "with a Retry-After header; I added a test for that. The booking POST endpoints aren't affected.",
                  [Edit("src/main/resources/application.yml", "      requests-per-minute: 100\n",
                        "      requests-per-minute: 20\n"),
                   Bash("./gradlew ktlintCheck test --tests '*RateLimit*'",
                        "PublicRateLimitFilterTest > returns 429 after 20 requests in a minute() PASSED\n"
                        "BUILD SUCCESSFUL")]),
        User("Also, Priya from the Clifton clinic says the 8am reminders are useless. Half their appointments start "
             "at 8:30 and people are already in the car by the time the SMS arrives. They want the reminder the "
             "evening before. Don't change anything yet, I need to agree the exact time with the clinic managers "
             "first."),
        Assistant("Okay, I've left the reminder cron as it is. When we change it, note that it's not only the "
                  "cron: the scheduler selects today's appointments, so an evening run has to select tomorrow's "
                  "(LocalDate.now(clock).plusDays(1)) or it would remind people after their appointment.",
                  [Todo([("Upgrade Spring Boot to 3.3.0 for CVE-2024-22262", "completed"),
                         ("Replace RestTemplate with RestClient in EsendexSmsClient", "completed"),
                         ("Lower the public availability rate limit", "completed"),
                         ("Move reminders to the evening before (waiting for the time from clinic managers)",
                          "pending"),
                         ("Prod deploy of the Boot upgrade", "pending")])]),
        User("Deploy this to prod."),
        Assistant("Triggered the deploy workflow for prod; it waited at the environment's approval gate, you "
                  "approved it, and it rolled out. The tasks report Spring Boot 3.3.0 in the startup banner and "
                  "health is UP behind the ALB.",
                  [Bash("gh workflow run deploy.yml -f environment=prod && gh run watch",
                        "deploy / deploy: Waiting for review: prod needs approval\n"
                        "✓ deploy / deploy in 7m40s"),
                   Bash("curl -s https://api.hollybrookvets.co.uk/actuator/health", "{\"status\":\"UP\"}")]),
    ]),
    ("pc6-reminders-connections", 15, [
        User("The clinic managers agreed. Reminders go out at 18:00 the evening before."),
        Assistant("Changed the scheduler to run at 18:00 London time and to select tomorrow's appointments. But "
                  "the app doesn't start any more:",
                  [Edit("src/main/kotlin/uk/co/hollybrook/pinecone/reminder/ReminderScheduler.kt",
                        "    @Scheduled(cron = \"0 0 8 * * *\", zone = \"Europe/London\")\n"
                        "    fun sendTodaysReminders() {\n"
                        "        appointments.findUnremindedOn(LocalDate.now(clock)).forEach(publisher::publish)\n",
                        "    @Scheduled(cron = \"0 18 * * *\", zone = \"Europe/London\")\n"
                        "    fun sendTomorrowsReminders() {\n"
                        "        appointments.findUnremindedOn(LocalDate.now(clock).plusDays(1))"
                        ".forEach(publisher::publish)\n"),
                   Bash("./gradlew bootRun",
                        "java.lang.IllegalStateException: Encountered invalid @Scheduled method "
                        "'sendTomorrowsReminders': Cron expression must consist of 6 fields (found 5 in "
                        "\"0 18 * * *\")", ok=False)]),
        User("That's a crontab expression. Spring's cron has a seconds field."),
        Assistant("Right, Spring's cron format starts with seconds, so 18:00 daily is \"0 0 18 * * *\". Fixed; the "
                  "app starts and the scheduler test with a fixed Clock at 18:00 publishes reminders for the next "
                  "day's appointments only.",
                  [Edit("src/main/kotlin/uk/co/hollybrook/pinecone/reminder/ReminderScheduler.kt",
                        "    @Scheduled(cron = \"0 18 * * *\", zone = \"Europe/London\")\n",
                        "    @Scheduled(cron = \"0 0 18 * * *\", zone = \"Europe/London\")\n"),
                   Bash("./gradlew ktlintCheck test", "219 tests completed, 0 failed\n\nBUILD SUCCESSFUL")]),
        User("Separate problem. Last night's prod deploy threw a load of errors for about two minutes. Find out "
             "what happened."),
        Assistant("Postgres ran out of connections during the rolling deploy. The new tasks logged \"FATAL: "
                  "remaining connection slots are reserved for non-replication superuser connections\". Prod RDS is "
                  "a db.t4g.micro with max_connections 112. With deployment_maximum_percent = 200, two old and two "
                  "new tasks run side by side, each with a Hikari pool of 20: 80 connections, plus Metabase's pool "
                  "of 25 and the legacy PHP admin, which still keeps about 10 open. That's 115, more than the "
                  "server allows. In normal operation we only need a fraction of 20 per task; Datadog shows at "
                  "most 9 active connections per task even on Monday morning.",
                  [Bash("aws logs filter-log-events --log-group-name /ecs/pinecone-prod --filter-pattern FATAL "
                        "--start-time $(date -d '-1 day' +%s000) --query 'events[0].message'",
                        "\"org.postgresql.util.PSQLException: FATAL: remaining connection slots are reserved for "
                        "non-replication superuser connections\""),
                   Bash("psql \"$PROD_RO_URL\" -c 'SHOW max_connections'", " max_connections\n-----------------\n"
                        " 112\n(1 row)")]),
        User("Pool of 12 per task then. And while you're at it, desired count goes to 3, Monday mornings are "
             "too tight on two."),
        Assistant("maximum-pool-size is now 12 and the ECS service's desired_count is 3. Worst case during a "
                  "deploy is now 6 tasks x 12 = 72, plus Metabase and the PHP admin: 107, under 112 but without "
                  "much headroom. The terraform change goes to prod through the workflow, waiting for your "
                  "approval.",
                  [Edit("src/main/resources/application.yml", "      maximum-pool-size: 20\n",
                        "      maximum-pool-size: 12\n"),
                   Edit("infra/ecs.tf", "  desired_count   = 2\n", "  desired_count   = 3\n"),
                   Bash("gh workflow run terraform.yml -f environment=prod -f action=apply && gh run watch",
                        "terraform / apply: Waiting for review: prod needs approval\n"
                        "✓ terraform / apply in 3m02s\n"
                        "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.")]),
        User("Fine for now. RDS Proxy goes on the list, I don't want to do that arithmetic every time we add a "
             "task."),
        Assistant("Added it to the list."),
        User("Another one: at 18:00 everything goes to Esendex in one burst now and they answer with 429s. The "
             "consumer retries three times, a second apart, and then dumps the message in the DLT. Yesterday 63 "
             "owners got no reminder. Give it a proper exponential backoff."),
        Assistant("Replaced FixedBackOff(1000L, 3) with ExponentialBackOffWithMaxRetries(6): starting at 2 "
                  "seconds, doubling, capped at 60 seconds, so the last retry happens roughly two minutes after the "
                  "first failure. SmsSendException for 4xx other than 429 is registered as not retryable, so a "
                  "wrong phone number goes to the DLT straight away. I also replayed yesterday's 63 messages from "
                  "pinecone.reminders.v1.DLT back to the main topic.",
                  [Edit("src/main/kotlin/uk/co/hollybrook/pinecone/reminder/KafkaConsumerConfig.kt",
                        "        DefaultErrorHandler(DeadLetterPublishingRecoverer(template), "
                        "FixedBackOff(1000L, 3))\n",
                        "        DefaultErrorHandler(\n            DeadLetterPublishingRecoverer(template),\n"
                        "            ExponentialBackOffWithMaxRetries(6).apply {\n"
                        "                initialInterval = 2_000L\n                multiplier = 2.0\n"
                        "                maxInterval = 60_000L\n            },\n"
                        "        ).apply { addNotRetryableExceptions(InvalidRecipientException::class.java) }\n"),
                   Bash("./gradlew ktlintCheck test", "221 tests completed, 0 failed\n\nBUILD SUCCESSFUL"),
                   Bash("./scripts/replay-dlt.sh pinecone.reminders.v1.DLT pinecone.reminders.v1 --since 24h",
                        "replayed 63 records from pinecone.reminders.v1.DLT to pinecone.reminders.v1")]),
        User("Ship it all to prod."),
        Assistant("Deployed through the workflow after your approval. Tonight's 18:00 run is the first evening "
                  "reminder run in prod; I'll check the DLT count in Datadog tomorrow.",
                  [Bash("gh workflow run deploy.yml -f environment=prod && gh run watch",
                        "deploy / deploy: Waiting for review: prod needs approval\n✓ deploy / deploy in 7m21s")]),
    ]),
    ("pc7-waitlist", 4, [
        User("How did the evening reminders go over the last week?"),
        Assistant("Well. Since the 18:00 switch the DLT has received 4 messages in total, all invalid phone "
                  "numbers, and Esendex's 429s are retried and delivered within a couple of minutes. No "
                  "connection errors in prod since the pool went to 12, including last Thursday's deploy.",
                  [Bash("aws logs filter-log-events --log-group-name /ecs/pinecone-prod --filter-pattern "
                        "'\"remaining connection slots\"' --start-time $(date -d '-10 days' +%s000) "
                        "--query 'length(events)'", "0")]),
        User("Good. Waitlist: it's behind pinecone.features.waitlist-enabled, false everywhere by default. It's "
             "been on in staging for a week through an env var and the receptionists like it. Switch it on in "
             "prod."),
        Assistant("Set pinecone.features.waitlist-enabled: true in application-prod.yml and deployed to prod via "
                  "the workflow. But the smoke test fails: GET /api/waitlist returns 404 in prod.",
                  [Read("src/main/resources/application-prod.yml",
                        "pinecone:\n  features:\n    waitlist-enabled: false\n  attachments:\n"
                        "    bucket: pinecone-prod-vet-attachments\n    prefix: xrays/\n"),
                   Edit("src/main/resources/application-prod.yml", "    waitlist-enabled: false\n",
                        "    waitlist-enabled: true\n"),
                   Bash("gh workflow run deploy.yml -f environment=prod && gh run watch",
                        "deploy / deploy: Waiting for review: prod needs approval\n✓ deploy / deploy in 7m12s"),
                   Bash("curl -s -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer $SMOKE_TOKEN\" "
                        "https://api.hollybrookvets.co.uk/api/waitlist", "404", ok=False)]),
        User("Then how does it work in staging?"),
        Assistant("Staging turns the flag on with the env var PINECONE_FEATURES_WAITLIST_ENABLED=true. Spring "
                  "matches an environment variable against several property names, so that one variable satisfies "
                  "both pinecone.features.waitlist-enabled (what the yml and WaitlistProperties use) and "
                  "pinecone.features.waitlist.enabled, which is what the @ConditionalOnProperty on "
                  "WaitlistController checks: a different name. In prod the flag comes from "
                  "application-prod.yml, where only waitlist-enabled is set, so the condition never matched and "
                  "the controller bean was never created. I changed the annotation to "
                  "@ConditionalOnProperty(\"pinecone.features.waitlist-enabled\", havingValue = \"true\"), added "
                  "a test that the controller bean exists only when the flag is true, and redeployed prod: "
                  "GET /api/waitlist returns 200.",
                  [Edit("src/main/kotlin/uk/co/hollybrook/pinecone/waitlist/WaitlistController.kt",
                        "@ConditionalOnProperty(\"pinecone.features.waitlist.enabled\")\n",
                        "@ConditionalOnProperty(\"pinecone.features.waitlist-enabled\", havingValue = \"true\")\n"),
                   Bash("./gradlew ktlintCheck test", "224 tests completed, 0 failed\n\nBUILD SUCCESSFUL"),
                   Bash("gh workflow run deploy.yml -f environment=prod && gh run watch",
                        "deploy / deploy: Waiting for review: prod needs approval\n✓ deploy / deploy in 7m05s"),
                   Bash("curl -s -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer $SMOKE_TOKEN\" "
                        "https://api.hollybrookvets.co.uk/api/waitlist", "200")]),
        User("Platform team says the old appointment-reminders topic still has a consumer group attached and "
             "they can't delete it. Is that us?"),
        Assistant("Yes, partly: the old reminder-sender group still exists on MSK, with no members and zero lag. "
                  "It's ours but idle; the group can be deleted. Per your rule I won't touch the topic from here; "
                  "the deletion has to go through the platform team's terraform repo. I drafted the PR "
                  "description for them.",
                  [Bash("kafka-consumer-groups.sh --bootstrap-server $MSK_BOOTSTRAP --command-config msk.properties "
                        "--describe --group reminder-sender",
                        "Consumer group 'reminder-sender' has no active members.\n\nGROUP           TOPIC"
                        "                  PARTITION  LAG\nreminder-sender appointment-reminders  0          0")]),
        User("I'm away for the rest of the week. Write down what's still open so we can pick it up after."),
        Assistant("Here's where things stand. Done this session: the waitlist is live in prod, and the "
                  "@ConditionalOnProperty name mismatch is fixed. Still open:\n"
                  "- Put RDS Proxy in front of Postgres; a deploy with 3 tasks at 12 connections each leaves only "
                  "a few connections of headroom.\n"
                  "- Get the old appointment-reminders topic and the reminder-sender group deleted via the platform "
                  "team's terraform repo (PR description drafted, not sent).\n"
                  "- Waitlist follow-up: SMS the next owner in line when a slot frees up; not started.\n"
                  "- Move the Dockerfile to eclipse-temurin:21-jre and jvmToolchain(21); we're still on Java 17.\n"
                  "- Migrate the legacy PHP admin off its direct database connections so it can be switched off.",
                  [Todo([("Enable the waitlist in prod", "completed"),
                         ("Fix the @ConditionalOnProperty name on WaitlistController", "completed"),
                         ("Put RDS Proxy in front of Postgres", "pending"),
                         ("Delete appointment-reminders topic via the platform terraform repo", "pending"),
                         ("Waitlist: SMS the next owner when a slot frees up", "pending"),
                         ("Move to Java 21 (eclipse-temurin:21-jre, jvmToolchain(21))", "pending"),
                         ("Retire the legacy PHP admin's DB connections", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("Which port does the service listen on when I run it on my laptop?", ["port: 8081", "8081"],
     ["port: 8080\n"]),
    ("Why can't the app use Spring's usual port locally?", ["Keycloak from the compose file already listens on 8080",
                                                             "Port 8080 was already in use"], []),
    ("Is the Hibernate session kept open for the whole web request?", ["open-in-view: false"], []),
    ("After we switched off open session in view, some endpoints blew up. How was that fixed?",
     ["@EntityGraph", "findDetailedById"], []),
    ("What's Hibernate's schema mode set to?", ["ddl-auto: validate"], ["ddl-auto: update"]),
    ("What's my rule about schema changes?", ["hand-written Flyway migration", "Flyway owns the schema"], []),
    ("How many database connections does each instance keep in its pool?",
     ["maximum-pool-size: 12", "Pool of 12 per task", "maximum-pool-size is now 12"],
     ["maximum-pool-size: 20", "maximum-pool-size: 10", "The pool is now 20"]),
    ("Why was the connection pool shrunk after it had been raised?",
     ["remaining connection slots are reserved", "max_connections 112", "ran out of connections"], []),
    ("Why did we raise the pool in the first place?", ["Connection is not available", "k6", "7.4%"], []),
    ("How do I run the load test?", ["k6 run load/booking-peak.js"], []),
    ("How long do cached availability slots live in Redis?", ["PT5M", "5 minutes"], ["PT30M", "Half an hour"]),
    ("Why was the availability cache shortened?", ["doesn't come back online for ages", "receptionists"], []),
    ("What happens to cached slots when an appointment is cancelled?", ["@CacheEvict", "evicts the cached"], []),
    ("Which mocking library do the tests use?", ["MockK", "io.mockk:mockk"], ["mockito-kotlin:5.1.0"]),
    ("Why did we move off Mockito?", ["null-safety check", "inline mock maker"], []),
    ("Am I OK with relaxed mocks?", ["Don't make mocks relaxed", "No relaxed mocks"], []),
    ("Which Kafka topic carries the appointment reminders?", ["pinecone.reminders.v1"],
     ["reminders-topic: appointment-reminders"]),
    ("What's the reminder consumer group called now?", ["pinecone.reminder-sender"],
     ["reminder-group: reminder-sender"]),
    ("Why did the reminders topic get a new name?", ["ACLs only allow pinecone.*", "platform team"], []),
    ("Can the service create Kafka topics itself?", ["auto-create: false", "Never create topics from the app"],
     []),
    ("When do the SMS reminders go out?", ["0 0 18 * * *", "18:00 the evening before"],
     ["0 0 8 * * *", "at 08:00"]),
    ("Why were the reminders moved from the morning?", ["already in the car", "8:30"], []),
    ("The app refused to start after the reminder schedule change. Why?",
     ["Cron expression must consist of 6 fields", "seconds field"], []),
    ("Besides the cron, what else had to change for evening reminders?", ["plusDays(1)", "tomorrow's"], []),
    ("How does the reminder consumer retry when the SMS gateway fails?",
     ["ExponentialBackOffWithMaxRetries(6)", "exponential backoff"], ["FixedBackOff(1000L, 3))\n"]),
    ("Why did we change the retry policy of the reminder listener?", ["429", "63 owners"], []),
    ("Where do reminders end up when all retries fail?", ["pinecone.reminders.v1.DLT"], []),
    ("How do I push dead-lettered reminders back onto the main topic?", ["replay-dlt.sh"], []),
    ("Which SMS provider do we use?", ["Esendex"], []),
    ("What does the SMS client use to make HTTP calls?", ["RestClient"], ["restTemplate: RestTemplate"]),
    ("Why did RestTemplate have to go?", ["maintenance mode"], []),
    ("What Spring Boot version are we on?", ["3.3.0"], ["version \"3.1.5\""]),
    ("Why did we upgrade Spring Boot?", ["CVE-2024-22262", "open redirect"], []),
    ("The Boot upgrade broke all the integration tests. What fixed it?",
     ["flyway-database-postgresql", "Unsupported Database"], []),
    ("Which Kotlin version do we build with?", ["1.9.24"], ["version \"1.9.20\""]),
    ("How many requests a minute can one IP make to the public availability endpoint?",
     ["requests-per-minute: 20", "20 per minute per IP", "20 a minute per IP"], ["requests-per-minute: 100"]),
    ("Why did we tighten the public rate limit?", ["scraping", "40k requests"], []),
    ("How much memory does the Fargate task get?", ["memory                   = 2048", "memory = 2048", "2048 MB"],
     ["memory                   = 1024", "memory = 1024"]),
    ("How many vCPU units does the ECS task have?", ["cpu = 1024", "cpu                      = 1024"],
     ["cpu = 512", "cpu                      = 512"]),
    ("How is the JVM heap sized in the container?", ["MaxRAMPercentage=75.0"], ["\"-Xmx768m -javaagent"]),
    ("Why were the staging tasks restarting all the time?", ["exit code 137", "OutOfMemoryError", "OOM-killed"], []),
    ("Why was the CPU of the task raised?", ["90 seconds", "health check grace period"], []),
    ("How many copies of the service run in prod?", ["desired_count   = 3", "desired_count is 3"],
     ["desired_count   = 2\n", "desired_count = 2"]),
    ("Which S3 bucket holds the x-ray uploads?", ["pinecone-prod-vet-attachments"],
     ["bucket: pinecone-attachments-prod"]),
    ("Under which key prefix are x-rays stored?", ["xrays/"], []),
    ("Are we allowed to create our own S3 buckets?", ["We don't create our own buckets"], []),
    ("What Flyway baseline version does the app use?", ["baseline-version: 4", "baselined at 4"],
     ["baseline-version: 1"]),
    ("Why did the first staging deploy fail on a migration?", ["relation \"vets\" already exists",
                                                               "schema dump"], []),
    ("Can I apply terraform to production from my machine?", ["never run terraform apply against prod",
                                                               "approval gate"], []),
    ("How do I deploy to staging?", ["gh workflow run deploy.yml -f environment=staging"], []),
    ("How do I start the app locally?", ["./gradlew bootRun --args='--spring.profiles.active=local'"], []),
    ("What must I run before saying a change is finished?", ["./gradlew ktlintCheck test"], []),
    ("What's my rule about an in-memory database for tests?", ["Never use H2", "real Postgres through Testcontainers"],
     []),
    ("Testcontainers couldn't find Docker on the Mac. What was the fix?",
     ["TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE", "colima", ".testcontainers.properties"], []),
    ("Is the waitlist switched on in production?", ["waitlist-enabled: true"], ["waitlist-enabled: false"]),
    ("Why did the waitlist endpoint return 404 after the flag was turned on?",
     ["@ConditionalOnProperty", "different name"], []),
    ("Which Postgres column did Hibernate add behind our back?", ["reminder_sent_at"], []),
    ("What's left to do?", ["RDS Proxy", "Java 21", "next owner in line"], []),
    ("Is the old reminders topic gone from MSK yet?", ["platform team's terraform repo", "not sent"], []),
    ("Which Java version do the containers run?", ["eclipse-temurin:17-jre", "still on Java 17"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("maximum-pool-size: 12", "Pool of 12 per task", "maximum-pool-size is now 12"),
              ("0 0 18 * * *", "18:00 the evening before"),
              ("pinecone.reminders.v1",),
              ("waitlist-enabled: true",),
              ("RDS Proxy", "Java 21", "next owner in line")],
    "stale": ["maximum-pool-size: 20", "maximum-pool-size: 10", "0 0 8 * * *", "PT30M", "requests-per-minute: 100",
              "mockito-kotlin:5.1.0", "baseline-version: 1", "pinecone-attachments-prod", "-Xmx768m",
              "waitlist-enabled: false"],
}
