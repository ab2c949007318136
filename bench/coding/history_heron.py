"""History (held out): eight weeks of Claude Code sessions on "heron", a C# / .NET 8 backend with its infrastructure.

heron is the .NET 8 backend behind the Brightpaw veterinary clinics' booking and stock system: ASP.NET Core minimal
APIs for the React admin front end (admin/, Vite) and the booking site, EF Core on SQL Server (Azure SQL in the
cloud), appointment events on an Azure Service Bus topic through a transactional outbox, SMS reminders sent by a
worker through Azure Communication Services, Serilog to Application Insights, feature flags in Azure App
Configuration, xUnit integration tests on Testcontainers, GitHub Actions, and Bicep for Azure (App Service first,
then Container Apps). Over eight sessions values change in varied ways: the local API port (moved by the user and
only said in words), the admin CORS origin (corrected), the Testcontainers.MsSql version (dotnet add package after
a failing wait strategy), the reminder queue name (corrected), the JSON library (Newtonsoft.Json replaced by
System.Text.Json after a reminder went out an hour off), the job runner (Hangfire replaced by BackgroundServices),
the access token lifetime, the default slot length, the Azure SQL tier (az sql db update, then Bicep), the EF Core
log level, the reminder scan interval and the low-stock report time, the hosting (App Service to Container Apps),
the container registry (corrected), the reminder lead time, the self-service cancellation cutoff and flag, the prod
API replica ceiling (raised by hand with az, then set lower in Bicep with a smaller connection pool) and the pinned
.NET SDK. Commands fail and are fixed, the user corrects the assistant and states rules, and the last session ends
with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers and the
file layout of history_kestrel.py were read), so it checks that recall generalises to a coding history nobody tuned
against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "heron"

MIGRATE_LOCAL = ("dotnet ef database update --project src/Heron.Infrastructure --startup-project src/Heron.Api")

SESSIONS = [
    ("hr1-local-setup", 60, [
        User("Starting on heron properly: the .NET 8 backend for the Brightpaw vet clinics (bookings, SMS "
             "reminders, stock). I want local dev in one go: SQL Server and the Service Bus emulator in docker "
             "compose, the Initial EF Core migration applied, and the API answering on its health endpoint."),
        Assistant("I'll read global.json and the settings first, then add a compose file and apply the migration. "
                  "The solution is src/Heron.Api (minimal APIs), src/Heron.Domain, src/Heron.Infrastructure (EF Core, "
                  "HeronDbContext and the migrations) and src/Heron.Worker, with tests in tests/Heron.Api.Tests.",
                  [Read("global.json",
                        "{\n  \"sdk\": {\n    \"version\": \"8.0.204\",\n    \"rollForward\": \"disable\"\n  }\n}\n"),
                   Read("src/Heron.Api/appsettings.json",
                        "{\n  \"Serilog\": {\n    \"MinimumLevel\": {\n      \"Default\": \"Information\",\n"
                        "      \"Override\": {\n        \"Microsoft.AspNetCore\": \"Warning\",\n"
                        "        \"Microsoft.EntityFrameworkCore\": \"Information\"\n      }\n    }\n  },\n"
                        "  \"Scheduling\": {\n    \"DefaultSlotMinutes\": 15,\n    \"OpeningHour\": 8\n  },\n"
                        "  \"Cors\": {\n    \"AdminOrigins\": []\n  }\n}\n"),
                   Read("src/Heron.Api/Properties/launchSettings.json",
                        "{\n  \"profiles\": {\n    \"Heron.Api\": {\n      \"commandName\": \"Project\",\n"
                        "      \"applicationUrl\": \"http://localhost:5080\",\n      \"environmentVariables\": {\n"
                        "        \"ASPNETCORE_ENVIRONMENT\": \"Development\"\n      }\n    }\n  }\n}\n"),
                   Write("docker-compose.yml",
                         "services:\n  sqlserver:\n    image: mcr.microsoft.com/mssql/server:2022-latest\n"
                         "    environment:\n      ACCEPT_EULA: \"Y\"\n      MSSQL_SA_PASSWORD: \"Heron_dev_2024!\"\n"
                         "    ports:\n      - \"1433:1433\"\n  servicebus:\n"
                         "    image: mcr.microsoft.com/azure-messaging/servicebus-emulator:latest\n"
                         "    volumes:\n      - ./dev/servicebus/config.json:/ServiceBus_Emulator/ConfigFiles/"
                         "Config.json\n    environment:\n      SQL_SERVER: sqlserver\n"
                         "      MSSQL_SA_PASSWORD: \"Heron_dev_2024!\"\n      ACCEPT_EULA: \"Y\"\n"
                         "    ports:\n      - \"5672:5672\"\n    depends_on: [sqlserver]\n"),
                   Bash("docker compose up -d && " + MIGRATE_LOCAL,
                        "[+] Running 3/3\n ✔ Network heron_default         Created\n"
                        " ✔ Container heron-sqlserver-1   Started\n ✔ Container heron-servicebus-1  Started\n"
                        "Build started...\nBuild succeeded.\n"
                        "Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific "
                        "error occurred while establishing a connection to SQL Server. (provider: TCP Provider, "
                        "error: 35 - An internal exception was caught)\n ---> System.IO.IOException: Unable to read "
                        "data from the transport connection: Connection reset by peer.", ok=False)]),
        Assistant("The migration ran before SQL Server had finished its first start (about 20 seconds), hence "
                  "error 35. I gave the sqlserver service a healthcheck (sqlcmd from /opt/mssql-tools18, with -C "
                  "because the container's certificate is self-signed), made the emulator wait for it to be "
                  "healthy, and bring the stack up with `docker compose up -d --wait`. The Initial migration is "
                  "applied.",
                  [Edit("docker-compose.yml", "    ports:\n      - \"1433:1433\"\n",
                        "    ports:\n      - \"1433:1433\"\n    healthcheck:\n      test: [\"CMD-SHELL\", "
                        "\"/opt/mssql-tools18/bin/sqlcmd -C -S localhost -U sa -P \\\"$$MSSQL_SA_PASSWORD\\\" "
                        "-Q 'SELECT 1'\"]\n      interval: 5s\n      retries: 20\n"),
                   Edit("docker-compose.yml", "    depends_on: [sqlserver]\n",
                        "    depends_on:\n      sqlserver:\n        condition: service_healthy\n"),
                   Bash("docker compose up -d --wait && " + MIGRATE_LOCAL,
                        "[+] Running 2/2\n ✔ Container heron-sqlserver-1   Healthy\n"
                        " ✔ Container heron-servicebus-1  Healthy\nBuild started...\nBuild succeeded.\n"
                        "Applying migration '20240812091455_Initial'.\nDone.")]),
        User("run it and hit health"),
        Assistant("The API is up on http://localhost:5080 and /healthz answers Healthy (it checks SQL Server and "
                  "the Service Bus connection).",
                  [Bash("dotnet run --project src/Heron.Api > /tmp/heron-api.log 2>&1 & sleep 8; "
                        "curl -s http://localhost:5080/healthz; grep 'Now listening' /tmp/heron-api.log",
                        "Healthy\n[09:22:41 INF] Now listening on: http://localhost:5080")]),
        User("The admin UI in admin/ is React + Vite and calls the API directly in dev, so we need CORS."),
        Assistant("Added a named CORS policy \"admin\" that reads Cors:AdminOrigins and is applied to the /api "
                  "route group; Development allows http://localhost:3000.",
                  [Edit("src/Heron.Api/Program.cs", "var app = builder.Build();\n",
                        "builder.Services.AddCors(o => o.AddPolicy(\"admin\", p => p\n"
                        "    .WithOrigins(builder.Configuration.GetSection(\"Cors:AdminOrigins\").Get<string[]>()!)\n"
                        "    .AllowAnyHeader().AllowAnyMethod()));\n\nvar app = builder.Build();\n"),
                   Edit("src/Heron.Api/appsettings.Development.json", "    \"AdminOrigins\": []\n",
                        "    \"AdminOrigins\": [\"http://localhost:3000\"]\n")]),
        User("It's Vite: the dev server runs on 5173, not 3000. And the prod origin is https://admin.brightpaw.vet, "
             "put that in appsettings.json."),
        Assistant("Fixed: Development allows http://localhost:5173 and appsettings.json allows "
                  "https://admin.brightpaw.vet. A preflight from the Vite origin now gets its "
                  "Access-Control-Allow-Origin header.",
                  [Edit("src/Heron.Api/appsettings.Development.json",
                        "    \"AdminOrigins\": [\"http://localhost:3000\"]\n",
                        "    \"AdminOrigins\": [\"http://localhost:5173\"]\n"),
                   Edit("src/Heron.Api/appsettings.json", "    \"AdminOrigins\": []\n",
                        "    \"AdminOrigins\": [\"https://admin.brightpaw.vet\"]\n"),
                   Bash("curl -si -X OPTIONS http://localhost:5080/api/appointments -H 'Origin: http://localhost:5173' "
                        "-H 'Access-Control-Request-Method: POST' | grep -i access-control-allow-origin",
                        "Access-Control-Allow-Origin: http://localhost:5173")]),
        User("Tests for POST /api/appointments: happy path, slot in the past, vet not working that day."),
        Assistant("Added CreateAppointmentTests with the three cases on a WebApplicationFactory that swaps the "
                  "DbContext for the EF Core in-memory provider. All three pass.",
                  [Write("tests/Heron.Api.Tests/Appointments/CreateAppointmentTests.cs",
                         "public class CreateAppointmentTests : IClassFixture<WebApplicationFactory<Program>>\n{\n"
                         "    // DbContext replaced with options.UseInMemoryDatabase(\"heron-tests\")\n"
                         "    [Fact]\n    public async Task Creates_appointment_in_free_slot() { ... }\n"
                         "    [Fact]\n    public async Task Rejects_slot_in_the_past() { ... }\n"
                         "    [Fact]\n    public async Task Rejects_vet_off_duty() { ... }\n}\n"),
                   Bash("dotnet test tests/Heron.Api.Tests --filter CreateAppointmentTests",
                        "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, Duration: 412 ms - "
                        "Heron.Api.Tests.dll (net8.0)")]),
        User("Don't use the EF InMemory provider. It enforces no unique indexes, no foreign keys and no rowversion, "
             "so it happily passes exactly the bugs we care about. Integration tests run against a real SQL Server "
             "through Testcontainers: use the HeronApiFactory fixture in tests/Heron.Api.Tests/Infrastructure."),
        Assistant("Rewrote the tests on IClassFixture<HeronApiFactory>, which starts an MsSqlContainer and applies "
                  "the migrations once per test class. The run fails before any test: the container's wait strategy "
                  "cannot find sqlcmd.",
                  [Write("tests/Heron.Api.Tests/Appointments/CreateAppointmentTests.cs",
                         "public class CreateAppointmentTests(HeronApiFactory factory) : IClassFixture<HeronApiFactory>"
                         "\n{\n    [Theory]\n    [MemberData(nameof(Cases))]\n"
                         "    public async Task Create_appointment(string name, object body, HttpStatusCode expected)\n"
                         "    {\n        var client = factory.CreateClient();\n"
                         "        var response = await client.PostAsJsonAsync(\"/api/appointments\", body);\n"
                         "        Assert.Equal(expected, response.StatusCode);\n    }\n}\n"),
                   Read("tests/Heron.Api.Tests/Heron.Api.Tests.csproj",
                        "<ItemGroup>\n    <PackageReference Include=\"Microsoft.AspNetCore.Mvc.Testing\" "
                        "Version=\"8.0.6\" />\n    <PackageReference Include=\"Testcontainers.MsSql\" "
                        "Version=\"3.8.0\" />\n    <PackageReference Include=\"xunit\" Version=\"2.8.1\" />\n"
                        "</ItemGroup>\n"),
                   Bash("dotnet test tests/Heron.Api.Tests",
                        "[testcontainers.org 00:00:03.87] Execute \"/opt/mssql-tools/bin/sqlcmd -Q SELECT 1;\" at "
                        "Docker container 3f1c2ab9e0d4\n  Failed Heron.Api.Tests.Appointments.CreateAppointmentTests"
                        " [1 m 0 s]\n  Error Message:\n   System.TimeoutException : The operation has timed out.\n"
                        "  stderr: OCI runtime exec failed: exec failed: unable to start container process: exec: "
                        "\"/opt/mssql-tools/bin/sqlcmd\": stat /opt/mssql-tools/bin/sqlcmd: no such file or "
                        "directory\nFailed!  - Failed:     3, Passed:     0, Skipped:     0, Total:     3", ok=False)]),
        Assistant("The mssql/server:2022-latest image moved sqlcmd to /opt/mssql-tools18 (the same reason the "
                  "compose healthcheck uses that path), and the wait strategy in Testcontainers.MsSql 3.8.0 still "
                  "calls /opt/mssql-tools/bin/sqlcmd. 3.10.0 probes both paths, so I upgraded the package; all "
                  "three cases pass against a real SQL Server.",
                  [Bash("dotnet add tests/Heron.Api.Tests package Testcontainers.MsSql --version 3.10.0",
                        "info : Adding PackageReference for package 'Testcontainers.MsSql' into project "
                        "'tests/Heron.Api.Tests/Heron.Api.Tests.csproj'.\ninfo : PackageReference for package "
                        "'Testcontainers.MsSql' version '3.10.0' updated in file "
                        "'tests/Heron.Api.Tests/Heron.Api.Tests.csproj'."),
                   Bash("dotnet test tests/Heron.Api.Tests",
                        "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, Duration: 14 s - "
                        "Heron.Api.Tests.dll (net8.0)")]),
        User("Good. Format check and then I'm done. And never commit or push for me: I review the diff and commit "
             "myself."),
        Assistant("Understood, I won't commit or push. dotnet format --verify-no-changes flagged whitespace in two "
                  "files; `dotnet format` fixed them and the check is clean. Everything is in the working tree for "
                  "your review.",
                  [Bash("dotnet format --verify-no-changes",
                        "src/Heron.Api/Program.cs(14,1): error WHITESPACE: Fix whitespace formatting. Replace 4 "
                        "characters with '\\n\\s\\s\\s\\s'.\ntests/Heron.Api.Tests/Appointments/"
                        "CreateAppointmentTests.cs(9,5): error WHITESPACE: Fix whitespace formatting.", ok=False),
                   Bash("dotnet format && dotnet format --verify-no-changes && git status --short",
                        " M docker-compose.yml\n M src/Heron.Api/Program.cs\n M src/Heron.Api/appsettings.json\n"
                        " M src/Heron.Api/appsettings.Development.json\n"
                        " M tests/Heron.Api.Tests/Heron.Api.Tests.csproj\n"
                        "?? tests/Heron.Api.Tests/Appointments/CreateAppointmentTests.cs")]),
    ]),
    ("hr2-events-reminders", 53, [
        User("Appointment events next. When an appointment is booked, moved or cancelled, billing and the SMS worker "
             "need to hear about it: publish to the Service Bus topic heron-appointments. And SMS reminders: a "
             "recurring job that finds appointments 24 hours out and queues a reminder for the worker, which sends "
             "it through Azure Communication Services."),
        Assistant("Publishing after SaveChangesAsync in the appointment endpoints, and Hangfire for the recurring "
                  "scan (Hangfire.SqlServer storage in a HangFire schema of the heron database, every 15 minutes). "
                  "The scanner sends one message per appointment to the appointment-reminders queue. Tests pass.",
                  [Todo([("Publish appointment events to heron-appointments", "in_progress"),
                         ("Reminder scan job", "pending"),
                         ("Worker sends reminder SMS via ACS", "pending")]),
                   Bash("dotnet add src/Heron.Api package Hangfire.AspNetCore --version 1.8.14 && dotnet add "
                        "src/Heron.Api package Hangfire.SqlServer --version 1.8.14",
                        "info : PackageReference for package 'Hangfire.AspNetCore' version '1.8.14' added to file "
                        "'src/Heron.Api/Heron.Api.csproj'.\ninfo : PackageReference for package "
                        "'Hangfire.SqlServer' version '1.8.14' added to file 'src/Heron.Api/Heron.Api.csproj'."),
                   Edit("src/Heron.Api/Endpoints/AppointmentEndpoints.cs",
                        "        await db.SaveChangesAsync(ct);\n        return Results.Created(",
                        "        await db.SaveChangesAsync(ct);\n"
                        "        await sender.SendMessageAsync(new ServiceBusMessage(\n"
                        "            JsonConvert.SerializeObject(AppointmentEvent.Booked(appointment))), ct);\n"
                        "        return Results.Created("),
                   Write("src/Heron.Api/Jobs/ReminderScanner.cs",
                         "public class ReminderScanner(HeronDbContext db, ServiceBusClient bus, "
                         "IOptions<ReminderOptions> options)\n{\n    public async Task RunAsync()\n    {\n"
                         "        var sender = bus.CreateSender(\"appointment-reminders\");\n"
                         "        var due = await db.Appointments.DueForReminder(options.Value.ReminderLeadHours)"
                         ".ToListAsync();\n        foreach (var a in due)\n"
                         "            await sender.SendMessageAsync(new ServiceBusMessage("
                         "JsonConvert.SerializeObject(ReminderRequested.From(a))));\n    }\n}\n"),
                   Edit("src/Heron.Api/Program.cs", "app.MapAppointmentEndpoints();\n",
                        "app.MapAppointmentEndpoints();\n\nRecurringJob.AddOrUpdate<ReminderScanner>(\"reminder-scan\","
                        " s => s.RunAsync(), \"*/15 * * * *\");\n"),
                   Edit("src/Heron.Api/appsettings.json", "  \"Cors\": {\n",
                        "  \"Reminders\": {\n    \"ReminderLeadHours\": 24\n  },\n  \"Cors\": {\n"),
                   Bash("dotnet test",
                        "Passed!  - Failed:     0, Passed:     7, Skipped:     0, Total:     7, Duration: 19 s - "
                        "Heron.Api.Tests.dll (net8.0)")]),
        User("Two things. The queue is called reminders-outbound, not appointment-reminders: it's already in "
             "infra/servicebus.bicep and in the emulator's config.json. And in the endpoint: if SaveChanges succeeds "
             "and the send to the topic fails, billing never hears about that booking. What are the options?"),
        Assistant("Queue name fixed to reminders-outbound; nothing else referred to the wrong one. For the lost "
                  "events there are three options: (1) a transactional outbox: the event is written to an "
                  "OutboxMessages table in the same SaveChanges as the appointment, and a dispatcher publishes "
                  "pending rows and marks them sent, so delivery is at-least-once and consumers dedupe on the "
                  "message id; (2) send first, then save, which publishes ghost events when the save fails; (3) "
                  "retry the send in-process, which still loses the event if the process dies in between. I'd take "
                  "the outbox.",
                  [Edit("src/Heron.Api/Jobs/ReminderScanner.cs", "bus.CreateSender(\"appointment-reminders\")",
                        "bus.CreateSender(\"reminders-outbound\")"),
                   Bash("grep -rn 'appointment-reminders\\|reminders-outbound' src infra dev",
                        "src/Heron.Api/Jobs/ReminderScanner.cs:7:        var sender = bus.CreateSender("
                        "\"reminders-outbound\");\ninfra/servicebus.bicep:31:  name: 'reminders-outbound'\n"
                        "dev/servicebus/config.json:22:            \"Name\": \"reminders-outbound\",")]),
        User("OK, let's go with the outbox. The dispatcher lives in Heron.Worker and polls every 2 seconds; don't "
             "make it a Hangfire job."),
        Assistant("Done: OutboxMessage entity and the AddOutbox migration, the endpoints add an outbox row instead "
                  "of sending, and OutboxDispatcher (a BackgroundService in Heron.Worker) publishes up to 50 pending "
                  "rows every 2 seconds with MessageId set to the row id, so duplicate detection on the topic "
                  "catches re-sends. Tests pass, including one that kills the send and checks the row stays pending.",
                  [Bash("dotnet ef migrations add AddOutbox --project src/Heron.Infrastructure --startup-project "
                        "src/Heron.Api",
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'"),
                   Edit("src/Heron.Api/Endpoints/AppointmentEndpoints.cs",
                        "        await db.SaveChangesAsync(ct);\n"
                        "        await sender.SendMessageAsync(new ServiceBusMessage(\n"
                        "            JsonConvert.SerializeObject(AppointmentEvent.Booked(appointment))), ct);\n",
                        "        db.Outbox.Add(OutboxMessage.For(\"heron-appointments\", "
                        "AppointmentEvent.Booked(appointment)));\n        await db.SaveChangesAsync(ct);\n"),
                   Write("src/Heron.Worker/Outbox/OutboxDispatcher.cs",
                         "public class OutboxDispatcher(IServiceScopeFactory scopes, ServiceBusClient bus, "
                         "ILogger<OutboxDispatcher> log)\n    : BackgroundService\n{\n"
                         "    protected override async Task ExecuteAsync(CancellationToken ct)\n    {\n"
                         "        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(2));\n"
                         "        while (await timer.WaitForNextTickAsync(ct))\n"
                         "            await DispatchBatchAsync(batchSize: 50, ct);\n    }\n}\n"),
                   Bash(MIGRATE_LOCAL + " && dotnet test",
                        "Applying migration '20240819101233_AddOutbox'.\nDone.\nPassed!  - Failed:     0, "
                        "Passed:     9, Skipped:     0, Total:     9, Duration: 21 s - Heron.Api.Tests.dll (net8.0)")]),
        User("Run the worker against the emulator and book one that's due."),
        Assistant("The booking went through the outbox and the reminder reached the worker, but completing the "
                  "message failed with MessageLockLost. The ACS SMS call with its Polly retries took 41 seconds "
                  "against the sandbox, and the queue's lock duration is 30 seconds (PT30S), so the lock expired "
                  "mid-send and the message would be delivered again. I set MaxAutoLockRenewalDuration to 5 minutes "
                  "on the processor so the SDK keeps renewing the lock while the handler runs; the rerun completes.",
                  [Bash("dotnet run --project src/Heron.Worker",
                        "[09:41:12 INF] Outbox dispatched 1 message(s) to heron-appointments\n"
                        "[09:41:12 INF] Sending reminder SMS to +447700900123 for appointment 5d0c9e1a\n"
                        "[09:41:53 ERR] Reminder handler failed for message 5d0c9e1a\n"
                        "Azure.Messaging.ServiceBus.ServiceBusException: The lock supplied is invalid. Either the "
                        "lock expired, or the message has already been removed from the queue. (MessageLockLost)",
                        ok=False),
                   Edit("src/Heron.Worker/Reminders/ReminderProcessor.cs",
                        "new ServiceBusProcessorOptions { MaxConcurrentCalls = 8 }",
                        "new ServiceBusProcessorOptions\n        {\n            MaxConcurrentCalls = 8,\n"
                        "            MaxAutoLockRenewalDuration = TimeSpan.FromMinutes(5),\n        }"),
                   Bash("dotnet run --project src/Heron.Worker",
                        "[09:47:02 INF] Sending reminder SMS to +447700900123 for appointment 7a41bb03\n"
                        "[09:47:44 INF] Reminder sent for appointment 7a41bb03 in 41.6 s")]),
        User("The lock fix is fine. But that log line has the client's phone number in it. Never log phone numbers "
             "or email addresses, not in any sink: App Insights keeps them for 90 days and that's a GDPR problem. "
             "Log the client id."),
        Assistant("The handler now logs ClientId and AppointmentId only. As a safety net I added a Serilog "
                  "destructuring policy (PiiMaskingPolicy) that masks any PhoneNumber or Email property to *** "
                  "before it reaches a sink, and a test that fails if a reminder run logs anything matching a phone "
                  "number.",
                  [Edit("src/Heron.Worker/Reminders/ReminderSmsHandler.cs",
                        "        log.LogInformation(\"Sending reminder SMS to {Phone} for appointment "
                        "{AppointmentId}\", client.PhoneNumber, msg.AppointmentId);\n",
                        "        log.LogInformation(\"Sending reminder SMS to client {ClientId} for appointment "
                        "{AppointmentId}\", client.Id, msg.AppointmentId);\n"),
                   Write("src/Heron.Infrastructure/Logging/PiiMaskingPolicy.cs",
                         "public sealed class PiiMaskingPolicy : IDestructuringPolicy\n{\n"
                         "    static readonly HashSet<string> Masked = [\"PhoneNumber\", \"Email\"];\n    ...\n}\n"),
                   Bash("dotnet test --filter ReminderLoggingTests",
                        "Passed!  - Failed:     0, Passed:     2, Skipped:     0, Total:     2, Duration: 6 s")]),
        User("Also the low-stock report: every morning, the items under their reorder level per clinic, emailed to "
             "the clinic manager. Hangfire job as well."),
        Assistant("Added LowStockReport as a Hangfire recurring job at 06:00 UTC (cron \"0 6 * * *\"): one email per "
                  "clinic through the SendGrid template, listing items whose quantity is under ReorderLevel. The "
                  "Hangfire dashboard is at /hangfire, restricted to the ops role. Tests pass.",
                  [Edit("src/Heron.Api/Program.cs",
                        "RecurringJob.AddOrUpdate<ReminderScanner>(\"reminder-scan\", s => s.RunAsync(), "
                        "\"*/15 * * * *\");\n",
                        "RecurringJob.AddOrUpdate<ReminderScanner>(\"reminder-scan\", s => s.RunAsync(), "
                        "\"*/15 * * * *\");\nRecurringJob.AddOrUpdate<LowStockReport>(\"low-stock-report\", "
                        "r => r.RunAsync(), \"0 6 * * *\");\n"
                        "app.MapHangfireDashboard(\"/hangfire\").RequireAuthorization(\"ops\");\n"),
                   Bash("dotnet test",
                        "Passed!  - Failed:     0, Passed:     12, Skipped:     0, Total:     12, Duration: 24 s - "
                        "Heron.Api.Tests.dll (net8.0)")]),
    ]),
    ("hr3-auth-json", 46, [
        User("Staff login for the admin UI. heron issues its own JWTs: POST /auth/token with the staff user's "
             "credentials returns an access token and a refresh token."),
        Assistant("Added /auth/token and /auth/refresh with JwtBearer validation; settings under Jwt in "
                  "appsettings.json (issuer https://api.brightpaw.vet, access tokens 60 minutes, refresh tokens 14 "
                  "days, the signing key from Key Vault). Tests pass, but my curl against the running API was "
                  "refused.",
                  [Edit("src/Heron.Api/appsettings.json", "  \"Cors\": {\n",
                        "  \"Jwt\": {\n    \"Issuer\": \"https://api.brightpaw.vet\",\n"
                        "    \"AccessTokenMinutes\": 60,\n    \"RefreshTokenDays\": 14\n  },\n  \"Cors\": {\n"),
                   Bash("dotnet test --filter AuthTests",
                        "Passed!  - Failed:     0, Passed:     5, Skipped:     0, Total:     5, Duration: 9 s"),
                   Bash("curl -s -X POST http://localhost:5080/auth/token -H 'Content-Type: application/json' "
                        "-d '{\"email\":\"frontdesk@harbourside.test\",\"password\":\"dev\"}'",
                        "curl: (7) Failed to connect to localhost port 5080 after 0 ms: Couldn't connect to server",
                        ok=False)]),
        User("Oh right, I moved the API from 5080 to 5090 in launchSettings on Friday: the Zebra label-printer "
             "agent the clinics use listens on 5080, on the front-desk PCs and on my laptop. Use 5090."),
        Assistant("Noted, the API is on http://localhost:5090 now. The token endpoint works there: expires_in is "
                  "3600.",
                  [Bash("curl -s -X POST http://localhost:5090/auth/token -H 'Content-Type: application/json' "
                        "-d '{\"email\":\"frontdesk@harbourside.test\",\"password\":\"dev\"}' | jq '{expires_in, "
                        "token_type}'",
                        "{\n  \"expires_in\": 3600,\n  \"token_type\": \"Bearer\"\n}")]),
        User("Make the access token good for 30 minutes instead of an hour. Front desk PCs are shared and people "
             "walk away still logged in. Refresh tokens stay at 14 days."),
        Assistant("AccessTokenMinutes is 30 now; a new token says expires_in 1800. Refresh tokens are unchanged at "
                  "14 days.",
                  [Edit("src/Heron.Api/appsettings.json", "    \"AccessTokenMinutes\": 60,\n",
                        "    \"AccessTokenMinutes\": 30,\n"),
                   Bash("curl -s -X POST http://localhost:5090/auth/token -H 'Content-Type: application/json' "
                        "-d '{\"email\":\"frontdesk@harbourside.test\",\"password\":\"dev\"}' | jq .expires_in",
                        "1800")]),
        User("Different thing. Staging: the reminder for a cat at Harbourside said 10:00 when the appointment was at "
             "11:00. Look at it."),
        Assistant("Found it. The outbox payload is written with Newtonsoft's JsonConvert and carries StartsAt already "
                  "converted to clinic time, \"2024-08-27T11:00:00+01:00\". The worker reads it through a JObject, "
                  "and Newtonsoft's default DateParseHandling.DateTime turns that string into a DateTime in the "
                  "container's zone (UTC), dropping the offset: 10:00. The SMS formatter prints that as is. The "
                  "minimal APIs meanwhile serialize with System.Text.Json, so we have two serializers configured "
                  "differently.",
                  [Read("src/Heron.Worker/Reminders/ReminderSmsHandler.cs",
                        "        var payload = JObject.Parse(message.Body.ToString());\n"
                        "        var startsAt = payload[\"StartsAt\"]!.Value<DateTime>();\n"
                        "        var text = $\"Reminder: {payload[\"PetName\"]} at {payload[\"ClinicName\"]} on "
                        "{startsAt:ddd d MMM} at {startsAt:HH:mm}.\";\n"),
                   Bash("grep -rln Newtonsoft src tests | wc -l", "9")]),
        User("Replace Newtonsoft.Json with System.Text.Json everywhere, one shared JsonSerializerOptions, and remove "
             "the package. And the rule from now on: times are stored and sent as UTC (datetimeoffset in SQL); "
             "convert to the clinic's zone, Clinic.TimeZoneId, only when rendering the SMS or an API response."),
        Assistant("HeronJson.Options in Heron.Domain is the one JsonSerializerOptions (web defaults), used by the "
                  "minimal APIs, the outbox and the worker. The payload now carries StartsAtUtc, and the SMS "
                  "formatter converts it with TimeZoneInfo.FindSystemTimeZoneById(clinic.TimeZoneId). Newtonsoft.Json "
                  "is removed from Heron.Infrastructure and Heron.Worker. The first test run failed: the outbox "
                  "contract test expects \"Status\": \"Booked\" and System.Text.Json wrote the enum as a number.",
                  [Write("src/Heron.Domain/Serialization/HeronJson.cs",
                         "public static class HeronJson\n{\n    public static readonly JsonSerializerOptions Options = "
                         "new(JsonSerializerDefaults.Web);\n}\n"),
                   Edit("src/Heron.Worker/Reminders/ReminderSmsHandler.cs",
                        "        var payload = JObject.Parse(message.Body.ToString());\n"
                        "        var startsAt = payload[\"StartsAt\"]!.Value<DateTime>();\n",
                        "        var payload = message.Body.ToObjectFromJson<ReminderRequested>(HeronJson.Options)!;\n"
                        "        var zone = TimeZoneInfo.FindSystemTimeZoneById(payload.ClinicTimeZoneId);\n"
                        "        var startsAt = TimeZoneInfo.ConvertTime(payload.StartsAtUtc, zone);\n"),
                   Bash("dotnet remove src/Heron.Infrastructure package Newtonsoft.Json && dotnet remove "
                        "src/Heron.Worker package Newtonsoft.Json",
                        "info : Removing PackageReference for package 'Newtonsoft.Json' from project "
                        "'src/Heron.Infrastructure/Heron.Infrastructure.csproj'.\ninfo : Removing PackageReference "
                        "for package 'Newtonsoft.Json' from project 'src/Heron.Worker/Heron.Worker.csproj'."),
                   Bash("dotnet test",
                        "  Failed Heron.Api.Tests.Outbox.OutboxContractTests.Booked_event_matches_billing_contract "
                        "[38 ms]\n  Error Message:\n   Assert.Equal() Failure: Strings differ\n"
                        "   Expected: ···\"Status\":\"Booked\",···\n   Actual:   ···\"Status\":1,···\n"
                        "Failed!  - Failed:     1, Passed:    16, Skipped:     0, Total:    17", ok=False)]),
        Assistant("Newtonsoft had a StringEnumConverter registered globally; System.Text.Json writes enums as "
                  "numbers unless told otherwise, and billing and the admin UI both expect names. Added "
                  "JsonStringEnumConverter to HeronJson.Options (and to the minimal API JSON options, which now "
                  "copy it). All 17 tests pass and no file references Newtonsoft any more.",
                  [Edit("src/Heron.Domain/Serialization/HeronJson.cs",
                        "new(JsonSerializerDefaults.Web);\n",
                        "new(JsonSerializerDefaults.Web)\n    {\n"
                        "        Converters = { new JsonStringEnumConverter() },\n    };\n"),
                   Bash("dotnet test && grep -rl Newtonsoft src tests | wc -l",
                        "Passed!  - Failed:     0, Passed:    17, Skipped:     0, Total:    17, Duration: 26 s - "
                        "Heron.Api.Tests.dll (net8.0)\n0")]),
    ]),
    ("hr4-double-booking", 39, [
        User("Harbourside got two dogs booked into the same 09:00 slot with Dr. Haas yesterday. How?"),
        Assistant("A race. CreateAppointment checks AnyAsync for an overlapping appointment and then inserts; two "
                  "front-desk PCs posted the same slot 40 ms apart, both checks saw a free slot and both inserts "
                  "went in. Nothing in the schema stops it. The fix is a unique filtered index on (VetId, StartsAt) "
                  "for appointments that aren't cancelled, and turning the unique violation (SQL error 2601) into a "
                  "409.",
                  [Bash("az monitor app-insights query --app appi-heron-staging --analytics-query \"requests | "
                        "where name == 'POST /api/appointments' and timestamp > ago(1d) and customDimensions.VetId "
                        "== '7' | project timestamp, resultCode\" -o tsv",
                        "2024-09-01T07:58:12.114Z\t201\n2024-09-01T07:58:12.153Z\t201")]),
        User("Do that."),
        Assistant("The index is in HeronDbContext with HasFilter(\"[Status] <> 'Cancelled'\") and the endpoint "
                  "maps DbUpdateException with number 2601 to 409 Conflict. Applying the UniqueVetSlot migration "
                  "locally failed, because my local database has duplicates from testing; staging has the real "
                  "Harbourside pair too.",
                  [Edit("src/Heron.Infrastructure/Persistence/HeronDbContext.cs",
                        "        b.Entity<Appointment>().Property(a => a.Status).HasConversion<string>()"
                        ".HasMaxLength(20);\n",
                        "        b.Entity<Appointment>().Property(a => a.Status).HasConversion<string>()"
                        ".HasMaxLength(20);\n        b.Entity<Appointment>().HasIndex(a => new { a.VetId, "
                        "a.StartsAt })\n            .IsUnique().HasFilter(\"[Status] <> 'Cancelled'\");\n"),
                   Bash("dotnet ef migrations add UniqueVetSlot --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api && " + MIGRATE_LOCAL,
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'\n"
                        "Applying migration '20240902084117_UniqueVetSlot'.\nFailed executing DbCommand (23ms)\n"
                        "Microsoft.Data.SqlClient.SqlException (0x80131904): The CREATE UNIQUE INDEX statement "
                        "terminated because a duplicate key was found for the object name 'dbo.Appointments' and "
                        "the index name 'IX_Appointments_VetId_StartsAt'. The duplicate key value is (7, 2024-09-01 "
                        "08:00:00.0000000 +00:00).", ok=False)]),
        User("Fix the data in the same migration: the later booking of each duplicate becomes Cancelled with "
             "CancelReason 'double-booking cleanup', then create the index. Staging needs the same."),
        Assistant("UniqueVetSlot now runs the cleanup UPDATE first (it keeps the earliest CreatedAtUtc per VetId and "
                  "StartsAt) and then creates the index; it applies locally. The race test posts the same slot "
                  "from two clients at once and gets one 201 and one 409. While in there I noticed the AddOutbox "
                  "migration spells its column ProccessedOnUtc; I could correct the spelling in that migration "
                  "file directly.",
                  [Edit("src/Heron.Infrastructure/Persistence/Migrations/20240902084117_UniqueVetSlot.cs",
                        "        migrationBuilder.CreateIndex(\n",
                        "        migrationBuilder.Sql(\"\"\"\n            WITH d AS (SELECT Id, ROW_NUMBER() OVER "
                        "(PARTITION BY VetId, StartsAt ORDER BY CreatedAtUtc) AS n\n"
                        "                       FROM Appointments WHERE Status <> 'Cancelled')\n"
                        "            UPDATE a SET Status = 'Cancelled', CancelReason = 'double-booking cleanup'\n"
                        "            FROM Appointments a JOIN d ON d.Id = a.Id WHERE d.n > 1\n"
                        "            \"\"\");\n        migrationBuilder.CreateIndex(\n"),
                   Bash(MIGRATE_LOCAL + " && dotnet test --filter DoubleBookingTests",
                        "Applying migration '20240902084117_UniqueVetSlot'.\nDone.\nPassed!  - Failed:     0, "
                        "Passed:     2, Skipped:     0, Total:     2, Duration: 8 s")]),
        User("No. Never edit a migration that has already been applied somewhere: AddOutbox is on staging, and "
             "EF won't run it again there, so your edit would only change fresh databases. Add a new migration "
             "that renames the column."),
        Assistant("Left AddOutbox alone. RenameOutboxProcessedColumn is a new migration with RenameColumn from "
                  "ProccessedOnUtc to ProcessedOnUtc, and the entity property is renamed; it applies locally and "
                  "the tests pass.",
                  [Bash("dotnet ef migrations add RenameOutboxProcessedColumn --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api && " + MIGRATE_LOCAL + " && dotnet test",
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'\n"
                        "Applying migration '20240902091502_RenameOutboxProcessedColumn'.\nDone.\n"
                        "Passed!  - Failed:     0, Passed:    19, Skipped:     0, Total:    19, Duration: 27 s")]),
        User("Also, the staging database was at 100% DTU most of yesterday morning while the front desks were busy. "
             "What's eating it?"),
        Assistant("Staging is on S1 (20 DTU). Query Store's top consumer by total CPU is Hangfire's queue polling, "
                  "a SELECT TOP (1) ... WITH (readpast, updlock, rowlock) on HangFire.JobQueue that both App "
                  "Service instances run every 15 seconds, followed by the free-slot search. Separately, App "
                  "Insights ingests about 14 GB a day, most of it EF Core logging every SQL command at Information.",
                  [Bash("az sql db show -g heron-staging-rg -s sql-heron-staging -n heron --query "
                        "'{sku: currentSku.name, tier: currentSku.tier, capacity: currentSku.capacity}' -o json",
                        "{\n  \"capacity\": 20,\n  \"sku\": \"S1\",\n  \"tier\": \"Standard\"\n}"),
                   Bash("sqlcmd -S sql-heron-staging.database.windows.net -d heron --authentication-method "
                        "ActiveDirectoryDefault -i scripts/querystore-top.sql -W",
                        "total_cpu_ms  executions  query\n"
                        "------------  ----------  -----\n"
                        "4182211       11520       (@queues nvarchar(4000))SELECT TOP (1) Id, JobId, Queue, "
                        "FetchedAt FROM [HangFire].JobQueue WITH (readpast, updlock, rowlock) ...\n"
                        "1907340       3114        (@clinicId int,@day date)SELECT a.VetId, a.StartsAt FROM "
                        "Appointments a ...\n"),
                   Bash("az monitor app-insights query --app appi-heron-staging --analytics-query \"union * | "
                        "where timestamp > ago(1d) | summarize GB = sum(_BilledSize) / 1e9 by itemType\" -o tsv",
                        "trace\t12.6\nrequest\t0.9\ndependency\t0.6")]),
        User("Bump staging to S3 for now, and put it in the Bicep too, or the next deploy takes it back down. Turn "
             "EF Core's logging down to Warning. And Hangfire polling our database every 15 seconds for two "
             "recurring jobs is silly: next session Hangfire goes, replaced by plain BackgroundServices in "
             "Heron.Worker. Put that on the list."),
        Assistant("Staging is S3 (100 DTU) now and infra/staging.bicepparam says sqlSkuName = 'S3' to match. The EF "
                  "Core override in appsettings.json is Warning, so SQL commands are no longer logged. Replacing "
                  "Hangfire with BackgroundServices is on the list for next session.",
                  [Bash("az sql db update -g heron-staging-rg -s sql-heron-staging -n heron --service-objective S3 "
                        "--query '{sku: currentSku.name, status: status}' -o json",
                        "{\n  \"sku\": \"S3\",\n  \"status\": \"Online\"\n}"),
                   Edit("infra/staging.bicepparam", "param sqlSkuName = 'S1'\n", "param sqlSkuName = 'S3'\n"),
                   Edit("src/Heron.Api/appsettings.json",
                        "        \"Microsoft.EntityFrameworkCore\": \"Information\"\n",
                        "        \"Microsoft.EntityFrameworkCore\": \"Warning\"\n"),
                   Todo([("Unique index against double bookings", "completed"),
                         ("Rename the outbox column in a new migration", "completed"),
                         ("Staging SQL to S3, in Bicep too", "completed"),
                         ("Replace Hangfire with BackgroundServices in Heron.Worker", "pending")])]),
        User("One more from the clinics: the default appointment slot is 20 minutes now, not 15. The vets say 15 is "
             "too tight for a vaccination plus the chat."),
        Assistant("DefaultSlotMinutes is 20 in appsettings.json; the slot generator test now expects 08:00, 08:20, "
                  "08:40. Existing appointments keep their length.",
                  [Edit("src/Heron.Api/appsettings.json", "    \"DefaultSlotMinutes\": 15,\n",
                        "    \"DefaultSlotMinutes\": 20,\n"),
                   Edit("tests/Heron.Api.Tests/Scheduling/SlotGeneratorTests.cs",
                        "        Assert.Equal([\"08:00\", \"08:15\", \"08:30\"], slots.Take(3));\n",
                        "        Assert.Equal([\"08:00\", \"08:20\", \"08:40\"], slots.Take(3));\n"),
                   Bash("dotnet test --filter SlotGeneratorTests",
                        "Passed!  - Failed:     0, Passed:     4, Skipped:     0, Total:     4, Duration: 1 s")]),
    ]),
    ("hr5-hosted-services", 31, [
        User("Hangfire out, as agreed. The reminder scan and the low-stock report become BackgroundServices in "
             "Heron.Worker. The scan can run every 5 minutes instead of 15, it's one indexed query now. And the "
             "low-stock report at 04:00 UTC instead of 06:00: the Dublin clinic's early shift starts at 06:30 and "
             "wants it before they open."),
        Assistant("ReminderScanService runs on a PeriodicTimer every 5 minutes (ReminderScan:IntervalMinutes in the "
                  "worker's appsettings.json) and LowStockReportService sleeps until the next LowStockReport:"
                  "RunAtUtc, \"04:00\". Both moved from Heron.Api into Heron.Worker, and the Reminders section "
                  "(ReminderLeadHours) moved with them into the worker's settings. Removing the Hangfire packages "
                  "broke the API build in one place.",
                  [Todo([("Reminder scan as a BackgroundService", "in_progress"),
                         ("Low-stock report as a BackgroundService", "pending"),
                         ("Remove Hangfire packages and dashboard", "pending"),
                         ("Drop the HangFire schema", "pending")]),
                   Write("src/Heron.Worker/Reminders/ReminderScanService.cs",
                         "public class ReminderScanService(IServiceScopeFactory scopes, IOptions<ReminderScanOptions> "
                         "options) : BackgroundService\n{\n"
                         "    protected override async Task ExecuteAsync(CancellationToken ct)\n    {\n"
                         "        using var timer = new PeriodicTimer(TimeSpan.FromMinutes(options.Value"
                         ".IntervalMinutes));\n        do { await ScanAsync(ct); } while (await "
                         "timer.WaitForNextTickAsync(ct));\n    }\n}\n"),
                   Write("src/Heron.Worker/appsettings.json",
                         "{\n  \"Reminders\": {\n    \"ReminderLeadHours\": 24\n  },\n  \"ReminderScan\": {\n"
                         "    \"IntervalMinutes\": 5\n  },\n  \"LowStockReport\": {\n    \"RunAtUtc\": \"04:00\"\n"
                         "  }\n}\n"),
                   Edit("src/Heron.Api/Program.cs",
                        "RecurringJob.AddOrUpdate<ReminderScanner>(\"reminder-scan\", s => s.RunAsync(), "
                        "\"*/15 * * * *\");\nRecurringJob.AddOrUpdate<LowStockReport>(\"low-stock-report\", "
                        "r => r.RunAsync(), \"0 6 * * *\");\n"
                        "app.MapHangfireDashboard(\"/hangfire\").RequireAuthorization(\"ops\");\n", ""),
                   Bash("dotnet remove src/Heron.Api package Hangfire.AspNetCore && dotnet remove src/Heron.Api "
                        "package Hangfire.SqlServer && dotnet build",
                        "src/Heron.Api/Endpoints/AppointmentEndpoints.cs(61,9): error CS0246: The type or namespace "
                        "name 'IBackgroundJobClient' could not be found (are you missing a using directive or an "
                        "assembly reference?)\nBuild FAILED.\n    0 Warning(s)\n    1 Error(s)", ok=False)]),
        Assistant("The booking endpoint also enqueued the confirmation email as a Hangfire fire-and-forget job. It "
                  "now adds an AppointmentConfirmationRequested outbox message instead, which the worker handles "
                  "like the other events, so the email can't be lost between save and enqueue either. Build and "
                  "tests pass.",
                  [Edit("src/Heron.Api/Endpoints/AppointmentEndpoints.cs",
                        "        jobs.Enqueue<ConfirmationMailer>(m => m.SendAsync(appointment.Id));\n",
                        "        db.Outbox.Add(OutboxMessage.For(\"heron-appointments\", "
                        "new AppointmentConfirmationRequested(appointment.Id)));\n"),
                   Bash("dotnet build && dotnet test",
                        "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\nPassed!  - Failed:     0, Passed:    "
                        "21, Skipped:     0, Total:    21, Duration: 29 s - Heron.Api.Tests.dll (net8.0)")]),
        User("Now drop the HangFire schema with a migration, so staging loses those tables on the next deploy."),
        Assistant("DropHangfireSchema drops the eleven HangFire tables and then the schema, in dependency order, "
                  "with IF EXISTS so a fresh database doesn't fail. Applied locally.",
                  [Bash("dotnet ef migrations add DropHangfireSchema --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api",
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'"),
                   Edit("src/Heron.Infrastructure/Persistence/Migrations/20240910093020_DropHangfireSchema.cs",
                        "    protected override void Up(MigrationBuilder migrationBuilder)\n    {\n    }\n",
                        "    protected override void Up(MigrationBuilder migrationBuilder)\n    {\n"
                        "        foreach (var table in HangfireTables)\n"
                        "            migrationBuilder.Sql($\"DROP TABLE IF EXISTS [HangFire].[{table}]\");\n"
                        "        migrationBuilder.Sql(\"DROP SCHEMA IF EXISTS [HangFire]\");\n    }\n"),
                   Bash(MIGRATE_LOCAL,
                        "Build started...\nBuild succeeded.\nApplying migration '20240910093020_DropHangfireSchema'."
                        "\nDone.")]),
        User("Merged it yesterday afternoon and the deploy workflow put it on staging "
             "(app-heron-api-staging.azurewebsites.net and the worker app next to it). This morning every test "
             "phone got two reminder texts for the same appointment."),
        Assistant("Both reminders come from the scan, not from redelivery: the worker logs show ReminderScanService "
                  "on two instances, RD0003FF-A1 and RD0003FF-B7, each queuing the same 14 appointments at 07:05. "
                  "Staging's App Service plan runs 2 instances and the worker web app runs on each, so every "
                  "BackgroundService runs twice; Hangfire's storage used to guarantee one run. Options: a SQL "
                  "Server application lock (sp_getapplock) that the scan takes with a zero timeout so other "
                  "instances skip that tick, or pinning the worker to one instance, which gives up scaling the SMS "
                  "sending.",
                  [Bash("az webapp log download -g heron-staging-rg -n app-heron-worker-staging --log-file "
                        "/tmp/worker-logs.zip && unzip -p /tmp/worker-logs.zip '*.log' | grep 'queued' | tail -2",
                        "2024-09-10 07:05:00.412 [INF] RD0003FF-A1 ReminderScanService queued 14 reminder(s)\n"
                        "2024-09-10 07:05:00.437 [INF] RD0003FF-B7 ReminderScanService queued 14 reminder(s)")]),
        User("OK, let's go with sp_getapplock. And make the reminder idempotent as well, so a retry can't text "
             "twice."),
        Assistant("The scan opens a transaction and takes sp_getapplock on 'heron:reminder-scan' with @LockOwner = "
                  "'Transaction' and @LockTimeout = 0; if it doesn't get the lock it skips the tick. The low-stock "
                  "report takes 'heron:low-stock-report' the same way. Appointments got a ReminderSentAtUtc column "
                  "(migration AddReminderSentAt), set in the same transaction that queues the reminder, and the scan "
                  "only picks rows where it is null. A test runs two scanners at once and gets one message per "
                  "appointment.",
                  [Write("src/Heron.Infrastructure/Locking/SqlAppLock.cs",
                         "public static class SqlAppLock\n{\n    public static async Task<bool> TryAcquireAsync("
                         "HeronDbContext db, string resource, CancellationToken ct)\n    {\n"
                         "        var result = await db.Database.SqlQuery<int>($\"\"\"\n"
                         "            DECLARE @r int;\n            EXEC @r = sp_getapplock @Resource = {resource}, "
                         "@LockMode = 'Exclusive',\n                @LockOwner = 'Transaction', @LockTimeout = 0;\n"
                         "            SELECT @r AS Value\n            \"\"\").SingleAsync(ct);\n"
                         "        return result >= 0;\n    }\n}\n"),
                   Bash("dotnet ef migrations add AddReminderSentAt --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api && " + MIGRATE_LOCAL
                        + " && dotnet test --filter ReminderScanConcurrencyTests",
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'\n"
                        "Applying migration '20240910142211_AddReminderSentAt'.\nDone.\nPassed!  - Failed:     0, "
                        "Passed:     2, Skipped:     0, Total:     2, Duration: 11 s"),
                   Todo([("Reminder scan as a BackgroundService", "completed"),
                         ("Low-stock report as a BackgroundService", "completed"),
                         ("Remove Hangfire packages and dashboard", "completed"),
                         ("Drop the HangFire schema", "completed"),
                         ("One scan per tick across instances (sp_getapplock)", "completed")])]),
    ]),
    ("hr6-container-apps", 24, [
        User("Staging moves from App Service to Container Apps. Two reasons: the worker should scale on the length "
             "of the reminders-outbound queue, which App Service can't do, and the always-on P1v3 plan costs more "
             "than the rest of staging together. Bicep in infra/, a module for the container apps."),
        Assistant("infra/modules/containerapps.bicep defines the environment cae-heron-staging, ca-heron-api "
                  "(external ingress, targetPort 80, 1 to apiMaxReplicas replicas on HTTP concurrency) and "
                  "ca-heron-worker (no ingress, 0 to 10 replicas, a KEDA azure-servicebus scale rule on "
                  "reminders-outbound with messageCount 20). Both use a user-assigned managed identity for SQL and "
                  "Service Bus. Images come from heronacr.azurecr.io. staging.bicepparam sets apiMaxReplicas = 2.",
                  [Write("infra/modules/containerapps.bicep",
                         "param apiMaxReplicas int\nparam registry string\n\nresource api 'Microsoft.App/"
                         "containerApps@2024-03-01' = {\n  name: 'ca-heron-api'\n  properties: {\n"
                         "    configuration: {\n      ingress: { external: true, targetPort: 80 }\n"
                         "      registries: [ { server: registry, identity: identity.id } ]\n    }\n"
                         "    template: {\n      scale: { minReplicas: 1, maxReplicas: apiMaxReplicas }\n    }\n"
                         "  }\n}\n"),
                   Write("infra/staging.bicepparam",
                         "using 'main.bicep'\n\nparam environmentName = 'staging'\nparam sqlSkuName = 'S3'\n"
                         "param apiMaxReplicas = 2\nparam registry = 'heronacr.azurecr.io'\n")]),
        User("There is no heronacr. We push to the shared registry, brightpawcr.azurecr.io, like every other "
             "Brightpaw service; the identity needs AcrPull on it."),
        Assistant("registry = 'brightpawcr.azurecr.io' in the param file, and main.bicep grants the apps' identity "
                  "AcrPull on the shared registry (it lives in the brightpaw-shared-rg group, so the role "
                  "assignment is a small module scoped there). The deployment succeeded, but the api revision never "
                  "turns healthy.",
                  [Edit("infra/staging.bicepparam", "param registry = 'heronacr.azurecr.io'\n",
                        "param registry = 'brightpawcr.azurecr.io'\n"),
                   Bash("az deployment group create -g heron-staging-rg -f infra/main.bicep -p "
                        "infra/staging.bicepparam --query properties.provisioningState -o tsv",
                        "Succeeded"),
                   Bash("az containerapp revision list -n ca-heron-api -g heron-staging-rg --query "
                        "'[].{name:name, health:properties.healthState, state:properties.runningState}' -o table",
                        "Name                   Health     State\n---------------------  ---------  ----------\n"
                        "ca-heron-api--v1a2b3c  Unhealthy  Activating"),
                   Bash("az containerapp logs show -n ca-heron-api -g heron-staging-rg --type system --tail 3",
                        "{\"Log\": \"Probe of StartUp failed with status code: 1\", \"Reason\": \"ProbeFailed\"}\n"
                        "{\"Log\": \"dial tcp 10.0.2.41:80: connect: connection refused\", \"Reason\": \"ProbeFailed\"}"
                        "\n{\"Log\": \"Container 'heron-api' was terminated with exit code '' and reason "
                        "'ProbeFailure'\"}", ok=False)]),
        Assistant("Since .NET 8 the official ASP.NET Core images listen on port 8080 (ASPNETCORE_HTTP_PORTS=8080), "
                  "not 80, so ingress and the startup probe knocked on a closed port. targetPort is 8080 now and the "
                  "health probes point at /healthz on 8080. The new revision is healthy and "
                  "https://ca-heron-api.cae-heron-staging.swedencentral.azurecontainerapps.io/healthz answers "
                  "Healthy.",
                  [Edit("infra/modules/containerapps.bicep", "      ingress: { external: true, targetPort: 80 }\n",
                        "      ingress: { external: true, targetPort: 8080 }\n"),
                   Bash("az deployment group create -g heron-staging-rg -f infra/main.bicep -p "
                        "infra/staging.bicepparam --query properties.provisioningState -o tsv && az containerapp "
                        "revision list -n ca-heron-api -g heron-staging-rg --query "
                        "'[0].properties.healthState' -o tsv",
                        "Succeeded\nHealthy")]),
        User("How does staging get deployed from now on? The old workflow pushed a zip to App Service."),
        Assistant("I rewrote .github/workflows/deploy.yml: on a push to main it logs in to Azure with OIDC (the "
                  "gh-heron-deploy app registration, no secrets), builds heron-api and heron-worker, pushes them to "
                  "brightpawcr.azurecr.io tagged with the commit SHA, and runs az containerapp update --image for "
                  "both apps in heron-staging-rg. A manual run with `gh workflow run deploy.yml` does the same.",
                  [Write(".github/workflows/deploy.yml",
                         "name: deploy\non:\n  push:\n    branches: [main]\n  workflow_dispatch: {}\n"
                         "permissions:\n  id-token: write\n  contents: read\njobs:\n  staging:\n"
                         "    runs-on: ubuntu-latest\n    environment: staging\n    steps:\n"
                         "      - uses: actions/checkout@v4\n      - uses: azure/login@v2\n        with:\n"
                         "          client-id: ${{ vars.AZURE_CLIENT_ID }}\n"
                         "          tenant-id: ${{ vars.AZURE_TENANT_ID }}\n"
                         "          subscription-id: ${{ vars.AZURE_SUBSCRIPTION_ID }}\n"
                         "      - run: az acr login -n brightpawcr\n"
                         "      - run: |\n          for app in api worker; do\n"
                         "            docker build -f src/Heron.${app^}/Dockerfile -t "
                         "brightpawcr.azurecr.io/heron-$app:${{ github.sha }} .\n"
                         "            docker push brightpawcr.azurecr.io/heron-$app:${{ github.sha }}\n"
                         "            az containerapp update -n ca-heron-$app -g heron-staging-rg \\\n"
                         "              --image brightpawcr.azurecr.io/heron-$app:${{ github.sha }}\n"
                         "          done\n")]),
        User("Check that the worker really scales on the queue. Push 500 test reminders into staging."),
        Assistant("It does: with 500 messages on reminders-outbound the worker went from 0 to 10 replicas within a "
                  "minute, drained the queue in about 3 minutes and scaled back to 0 after the cooldown. The "
                  "sp_getapplock guard kept the scan to one instance per tick (one 'queued' line per tick in the "
                  "logs).",
                  [Bash("dotnet run --project tools/Heron.LoadTool -- reminders --count 500 --env staging",
                        "Queued 500 test reminders on reminders-outbound (session loadtest-0917)"),
                   Bash("for i in 1 2 3; do az containerapp replica list -n ca-heron-worker -g heron-staging-rg "
                        "--query 'length(@)' -o tsv; sleep 60; done",
                        "10\n10\n3")]),
    ]),
    ("hr7-prod-launch", 15, [
        User("Production. Same Bicep with infra/prod.bicepparam, resource group heron-prod-rg, S3 for the database "
             "from the start. Then the schema: how do the migrations get to prod?"),
        Assistant("prod.bicepparam mirrors staging with environmentName 'prod', sqlSkuName = 'S3' and apiMaxReplicas "
                  "= 3; the what-if shows only creations. For the schema, the quickest way is to run dotnet ef "
                  "database update from here against the prod connection string once you've done az login; I can "
                  "do that as soon as the infrastructure is up.",
                  [Write("infra/prod.bicepparam",
                         "using 'main.bicep'\n\nparam environmentName = 'prod'\nparam sqlSkuName = 'S3'\n"
                         "param apiMaxReplicas = 3\nparam registry = 'brightpawcr.azurecr.io'\n"),
                   Bash("az deployment group what-if -g heron-prod-rg -f infra/main.bicep -p infra/prod.bicepparam "
                        "--no-pretty-print --query 'changes[].changeType' -o tsv | sort | uniq -c",
                        "     14 Create")]),
        User("No. Never run migrations against prod from a laptop, not even mine. Migrations go through the "
             "pipeline: CI builds an EF migration bundle, and a migrate-prod job in the production environment runs "
             "it, which needs my approval in GitHub. Nobody holds prod database credentials locally."),
        Assistant("Understood, no database update against prod from here. deploy.yml now has a build-bundle job "
                  "(dotnet ef migrations bundle, self-contained for linux-x64, uploaded as an artifact) and a "
                  "migrate-prod job in the production environment that runs ./efbundle with an Entra ID connection "
                  "string (Authentication=Active Directory Default) through the same OIDC login; the prod image "
                  "rollout waits for it.",
                  [Edit(".github/workflows/deploy.yml", "jobs:\n  staging:\n",
                        "jobs:\n  build-bundle:\n    runs-on: ubuntu-latest\n    steps:\n"
                        "      - uses: actions/checkout@v4\n      - run: dotnet tool restore\n"
                        "      - run: dotnet ef migrations bundle --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api -o efbundle --self-contained -r linux-x64\n"
                        "      - uses: actions/upload-artifact@v4\n        with: { name: efbundle, path: efbundle }\n"
                        "  migrate-prod:\n    needs: [build-bundle, staging]\n    runs-on: ubuntu-latest\n"
                        "    environment: production\n    steps:\n"
                        "      - uses: actions/download-artifact@v4\n        with: { name: efbundle }\n"
                        "      - uses: azure/login@v2\n"
                        "      - run: chmod +x efbundle && ./efbundle --connection "
                        "\"${{ vars.PROD_SQL_CONNECTION }}\"\n"
                        "  staging:\n")]),
        User("I approved the run."),
        Assistant("migrate-prod failed at the login: the database has no user for the gh-heron-deploy identity, so "
                  "Entra authenticates it but SQL rejects it. It needs a contained user created by the server's "
                  "Entra admin, which is you:\n\nCREATE USER [gh-heron-deploy] FROM EXTERNAL PROVIDER;\nALTER ROLE "
                  "db_ddladmin ADD MEMBER [gh-heron-deploy];\nALTER ROLE db_datareader ADD MEMBER "
                  "[gh-heron-deploy];\nALTER ROLE db_datawriter ADD MEMBER [gh-heron-deploy];",
                  [Bash("gh run view 10998234112 --log-failed | tail -3",
                        "migrate-prod\tRun efbundle\tMicrosoft.Data.SqlClient.SqlException (0x80131904): Login failed "
                        "for user '<token-identified principal>'.\nmigrate-prod\tRun efbundle\t   at "
                        "Microsoft.Data.SqlClient.SqlInternalConnection.OnError(SqlException exception)\n"
                        "migrate-prod\tRun efbundle\t##[error]Process completed with exit code 1.", ok=False)]),
        User("Done, ran it as the Entra admin. Rerun."),
        Assistant("The rerun applied all eight migrations to prod, Initial through AddReminderSentAt, and the prod "
                  "images rolled out; ca-heron-api is healthy in heron-prod-rg.",
                  [Bash("gh run rerun 10998234112 --failed && gh run watch 10998234112 --exit-status | tail -5",
                        "✓ migrate-prod in 1m12s\n  Applying migration '20240910093020_DropHangfireSchema'.\n"
                        "  Applying migration '20240910142211_AddReminderSentAt'.\n  Done.\n"
                        "✓ prod in 2m31s")]),
        User("Self-service cancellation on the booking site goes live in prod today. The flag is "
             "SelfServiceCancellation in App Configuration. And the cutoff: clients can cancel until 12 hours "
             "before, not 24; the clinics would rather refill the slot than have a no-show."),
        Assistant("The flag was off for the prod label; it's on now. Booking:CancellationCutoffHours is 12 in "
                  "appsettings.json, so the cancel endpoint answers 409 inside the last 12 hours and the booking "
                  "site hides the button from then on. Tests adjusted and passing.",
                  [Bash("az appconfig feature show -n appcs-heron --feature SelfServiceCancellation --label prod "
                        "--query '{state: state}' -o json",
                        "{\n  \"state\": \"off\"\n}"),
                   Bash("az appconfig feature enable -n appcs-heron --feature SelfServiceCancellation --label prod "
                        "--yes --query '{key: key, label: label, state: state}' -o json",
                        "{\n  \"key\": \"SelfServiceCancellation\",\n  \"label\": \"prod\",\n"
                        "  \"state\": \"on\"\n}"),
                   Edit("src/Heron.Api/appsettings.json", "    \"CancellationCutoffHours\": 24\n",
                        "    \"CancellationCutoffHours\": 12\n"),
                   Bash("dotnet test --filter CancellationTests",
                        "Passed!  - Failed:     0, Passed:     5, Skipped:     0, Total:     5, Duration: 7 s")]),
        User("And the reminder SMS should go out 48 hours ahead instead of 24. Owners need a day to find someone "
             "who can bring the animal in, and the 12-hour cutoff still leaves them time to cancel."),
        Assistant("ReminderLeadHours is 48 in the worker's appsettings.json. The scan selects appointments "
                  "starting within the next 48 hours whose ReminderSentAtUtc is null, so on the first run after "
                  "deploy everything in the 24 to 48 hour window gets its reminder once; nothing is sent twice.",
                  [Edit("src/Heron.Worker/appsettings.json", "    \"ReminderLeadHours\": 24\n",
                        "    \"ReminderLeadHours\": 48\n"),
                   Bash("dotnet test --filter ReminderScan",
                        "Passed!  - Failed:     0, Passed:     6, Skipped:     0, Total:     6, Duration: 12 s")]),
        User("Last thing: delete the old staging App Service and its plan, we've been on Container Apps for a week."),
        Assistant("Deleted app-heron-api-staging, app-heron-worker-staging and the asp-heron-staging P1v3 plan. The "
                  "App Service module is gone from infra/ too, so Bicep won't recreate them.",
                  [Bash("az webapp delete -g heron-staging-rg -n app-heron-api-staging && az webapp delete -g "
                        "heron-staging-rg -n app-heron-worker-staging && az appservice plan delete -g heron-staging-rg "
                        "-n asp-heron-staging --yes && az resource list -g heron-staging-rg --query "
                        "\"[?contains(type, 'Microsoft.Web')]\" -o tsv | wc -l",
                        "0"),
                   Bash("rm infra/modules/appservice.bicep && git status --short infra",
                        " D infra/modules/appservice.bicep\n M infra/main.bicep")]),
    ]),
    ("hr8-monday-rush", 4, [
        User("Rough Monday. At 08:00 when all the clinics opened, the prod API sat at 3 replicas with CPU pinned and "
             "requests queued, so I raised the ceiling by hand: az containerapp update -n ca-heron-api -g "
             "heron-prod-rg --max-replicas 10. It scaled out, and from about 08:40 we got SQL errors instead."),
        Assistant("Confirmed: ca-heron-api is at 10 replicas with maxReplicas 10, and the errors are Azure SQL error "
                  "10928, the request limit: S3 allows 200 concurrent requests (workers). Each replica's "
                  "SqlClient pool defaults to Max Pool Size 100, and the slow free-slot search holds connections "
                  "for up to 2 seconds, so 10 replicas can have far more than 200 queries running at once. The slot "
                  "search scans Appointments because there is no index on (ClinicId, StartsAt).",
                  [Bash("az containerapp show -n ca-heron-api -g heron-prod-rg --query "
                        "'properties.template.scale.{min: minReplicas, max: maxReplicas}' -o json",
                        "{\n  \"max\": 10,\n  \"min\": 1\n}"),
                   Bash("az monitor app-insights query --app appi-heron-prod --analytics-query \"exceptions | "
                        "where timestamp > ago(6h) | summarize n = count() by outerMessage | top 1 by n\" -o tsv",
                        "Resource ID : 1. The request limit for the database is 200 and has been reached. See "
                        "'https://docs.microsoft.com/azure/azure-sql/database/resource-limits-logical-server' for "
                        "assistance.\t1873")]),
        User("Set the ceiling to 6 replicas, not 10, and cap the pool at Max Pool Size=30 per replica: 6 × 30 = 180 "
             "stays under 200. Add the index for the slot search. And a rule from now on: anything changed with az "
             "by hand goes back into Bicep the same day, or the next deploy quietly reverts it; run a what-if "
             "before every Bicep deploy."),
        Assistant("prod.bicepparam says apiMaxReplicas = 6, and the SQL connection string the container apps get "
                  "from Bicep ends in Max Pool Size=30. The what-if shows exactly those two changes against what "
                  "is running (maxReplicas 10 => 6, the connection string secret). Migration "
                  "AddClinicStartsAtIndex adds IX_Appointments_ClinicId_StartsAt including VetId and Status; it "
                  "goes to prod through the pipeline's migrate-prod job like every migration. Locally the slot "
                  "search went from 1.9 s to 40 ms on the copy of the anonymised data.",
                  [Edit("infra/prod.bicepparam", "param apiMaxReplicas = 3\n", "param apiMaxReplicas = 6\n"),
                   Edit("infra/modules/containerapps.bicep",
                        "var sqlConnection = 'Server=tcp:${sqlServerFqdn},1433;Database=heron;Authentication=Active "
                        "Directory Managed Identity;User Id=${identity.properties.clientId}'\n",
                        "var sqlConnection = 'Server=tcp:${sqlServerFqdn},1433;Database=heron;Authentication=Active "
                        "Directory Managed Identity;User Id=${identity.properties.clientId};Max Pool Size=30'\n"),
                   Bash("az deployment group what-if -g heron-prod-rg -f infra/main.bicep -p infra/prod.bicepparam "
                        "--no-pretty-print --query \"changes[?changeType=='Modify'].resourceId\" -o tsv",
                        ".../Microsoft.App/containerApps/ca-heron-api\n"
                        "  ~ properties.template.scale.maxReplicas: 10 => 6\n"
                        "  ~ properties.configuration.secrets[0]: (secret value changed)"),
                   Bash("dotnet ef migrations add AddClinicStartsAtIndex --project src/Heron.Infrastructure "
                        "--startup-project src/Heron.Api && " + MIGRATE_LOCAL
                        + " && dotnet test --filter SlotSearch",
                        "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'\n"
                        "Applying migration '20241007101544_AddClinicStartsAtIndex'.\nDone.\n"
                        "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, Duration: 9 s")]),
        User("Committed and approved. Check prod once the deploy is through."),
        Assistant("The deploy ran the migration and the Bicep step; ca-heron-api now has maxReplicas 6 and the new "
                  "secret, and no 10928 errors since the rollout.",
                  [Bash("az containerapp show -n ca-heron-api -g heron-prod-rg --query "
                        "'properties.template.scale.maxReplicas' -o tsv", "6"),
                   Bash("az monitor app-insights query --app appi-heron-prod --analytics-query \"exceptions | "
                        "where timestamp > ago(1h) and outerMessage has 'request limit' | count\" -o tsv", "0")]),
        User("New laptop, and the build doesn't even start."),
        Assistant("global.json pins SDK 8.0.204 with rollForward disabled, and the new laptop only has 8.0.401.",
                  [Bash("dotnet build",
                        "A compatible .NET SDK was not found.\n\nRequested SDK version: 8.0.204\nglobal.json file: "
                        "/Users/mina/src/heron/global.json\n\nInstalled SDKs:\n8.0.401 [/usr/local/share/dotnet/sdk]"
                        "\n\nInstall the [8.0.204] .NET SDK or update [/Users/mina/src/heron/global.json] to match "
                        "an installed SDK.", ok=False)]),
        User("Pin 8.0.401 and let it roll forward to newer patches within the feature band, latestPatch. CI reads "
             "global.json too, right?"),
        Assistant("global.json now says version 8.0.401 with rollForward latestPatch. Yes: both workflows use "
                  "actions/setup-dotnet with global-json-file: global.json, so CI installs the same SDK. The build "
                  "and the tests pass on the new laptop.",
                  [Edit("global.json", "    \"version\": \"8.0.204\",\n    \"rollForward\": \"disable\"\n",
                        "    \"version\": \"8.0.401\",\n    \"rollForward\": \"latestPatch\"\n"),
                   Bash("grep -n global-json-file .github/workflows/*.yml",
                        ".github/workflows/ci.yml:17:          global-json-file: global.json\n"
                        ".github/workflows/deploy.yml:24:          global-json-file: global.json"),
                   Bash("dotnet --version && dotnet build && dotnet test",
                        "8.0.401\nBuild succeeded.\n    0 Warning(s)\n    0 Error(s)\nPassed!  - Failed:     0, "
                        "Passed:    38, Skipped:     0, Total:    38, Duration: 41 s - Heron.Api.Tests.dll (net8.0)")]),
        User("I have to stop. Where are we?"),
        Assistant("Nothing is committed from the SDK change: global.json is in the working tree for you to review. "
                  "Prod runs at most 6 API replicas with a pool of 30 each. Still open: evaluate moving prod Azure "
                  "SQL from S3 (DTU) to serverless vCore, GP_S_Gen5_2, which would lift the 200 request ceiling; an "
                  "alert on dead-lettered messages in reminders-outbound; switch the worker from the ACS connection "
                  "string to its managed identity; a Playwright smoke test for the admin booking page; and a "
                  "Monday-morning load test against staging before anyone raises the replica ceiling again.",
                  [Todo([("Prod API max 6 replicas, Max Pool Size=30, in Bicep", "completed"),
                         ("Index for the slot search (AddClinicStartsAtIndex)", "completed"),
                         ("Pin .NET SDK 8.0.401 in global.json", "completed"),
                         ("Evaluate Azure SQL serverless vCore (GP_S_Gen5_2) instead of S3 for prod", "pending"),
                         ("Alert on dead-lettered messages in reminders-outbound", "pending"),
                         ("Worker: ACS via managed identity instead of the connection string", "pending"),
                         ("Playwright smoke test for the admin booking page", "pending"),
                         ("Load test Monday-morning traffic on staging before raising maxReplicas", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("What port does the API run on when I start it locally?", ["localhost:5090", "from 5080 to 5090"],
     ["http://localhost:5080"]),
    ("Why isn't the API on its old local port any more?", ["label-printer agent"], []),
    ("Which origin is allowed through CORS for the admin front end in development?", ["localhost:5173"],
     ["localhost:3000"]),
    ("What's the production CORS origin for the admin app?", ["https://admin.brightpaw.vet"], []),
    ("How do I bring up the local database and message broker?", ["docker compose up -d --wait"], []),
    ("Why did the very first migration run fail with a network error?", ["error 35", "finished its first start"],
     []),
    ("How do I apply the EF migrations to my local database?", [MIGRATE_LOCAL, "dotnet ef database update"], []),
    ("How do I create a new EF Core migration?", ["dotnet ef migrations add"], []),
    ("How do I run the test suite?", ["dotnet test"], []),
    ("Can I use the in-memory EF provider for tests?", ["Don't use the EF InMemory provider", "Testcontainers"], []),
    ("Which test fixture should integration tests use?", ["HeronApiFactory"], []),
    ("Which Testcontainers.MsSql version are we on?", ["3.10.0"], ["Version=\"3.8.0\""]),
    ("Why did the Testcontainers tests time out at first?", ["/opt/mssql-tools18", "no such file or directory"], []),
    ("How do I check formatting before I hand over a change?", ["dotnet format --verify-no-changes"], []),
    ("Are you allowed to commit or push for me?", ["never commit or push for me", "won't commit or push"], []),
    ("Which Service Bus queue carries the SMS reminders?", ["reminders-outbound"], ["appointment-reminders"]),
    ("What topic do appointment events go to?", ["heron-appointments"], []),
    ("How do we make sure billing never misses an appointment event?", ["transactional outbox", "OutboxMessages"],
     []),
    ("Why didn't we just publish to Service Bus right after saving?", ["billing never hears about that booking",
                                                                       "ghost events"], []),
    ("How often does the outbox dispatcher poll?", ["every 2 seconds", "FromSeconds(2)"], []),
    ("The worker threw MessageLockLost. What was the fix?", ["MaxAutoLockRenewalDuration"], []),
    ("Why did the reminder message lose its lock?", ["41 seconds", "PT30S"], []),
    ("Can I put a client's phone number in a log message?", ["Never log phone numbers", "PiiMaskingPolicy"], []),
    ("How long do staff access tokens last?", ["\"AccessTokenMinutes\": 30", "expires_in 1800", "30 minutes"],
     ["\"AccessTokenMinutes\": 60"]),
    ("Why were access tokens shortened?", ["walk away still logged in", "Front desk PCs are shared"], []),
    ("How long is a refresh token valid?", ["14 days"], []),
    ("Which JSON serializer do we use?", ["System.Text.Json", "HeronJson.Options"],
     ["JsonConvert.SerializeObject"]),
    ("Why did we get rid of Newtonsoft?", ["DateParseHandling", "two serializers configured differently"], []),
    ("After the JSON switch a contract test failed. What broke?", ["JsonStringEnumConverter",
                                                                  "wrote the enum as a number"], []),
    ("How should we handle time zones for appointments?", ["Clinic.TimeZoneId", "stored and sent as UTC"], []),
    ("How do we run background jobs now?", ["BackgroundService", "ReminderScanService"],
     ["RecurringJob.AddOrUpdate"]),
    ("Why did Hangfire get removed?", ["polling our database every 15 seconds", "HangFire.JobQueue"], []),
    ("How often does the reminder scan run?", ["\"IntervalMinutes\": 5", "every 5 minutes"], ["*/15 * * * *"]),
    ("What time does the low-stock email go out?", ["\"RunAtUtc\": \"04:00\"", "04:00 UTC"], ["\"0 6 * * *\""]),
    ("Why was the low-stock report moved earlier?", ["early shift starts at 06:30"], []),
    ("Why did clients get two reminder texts on staging?", ["runs twice", "2 instances"], []),
    ("How do we stop the scan running on several instances at once?", ["sp_getapplock"], []),
    ("What keeps a reminder from being sent twice on a retry?", ["ReminderSentAtUtc"], []),
    ("How far ahead of the appointment is the reminder SMS sent?", ["\"ReminderLeadHours\": 48", "48 hours"],
     ["\"ReminderLeadHours\": 24"]),
    ("What's the default slot length for appointments?", ["\"DefaultSlotMinutes\": 20", "20 minutes"],
     ["\"DefaultSlotMinutes\": 15"]),
    ("How did two pets end up booked into the same slot?", ["40 ms apart", "A race"], []),
    ("What prevents double bookings now?", ["IX_Appointments_VetId_StartsAt", "unique filtered index"], []),
    ("Can I fix a mistake in an old migration file?", ["Never edit a migration that has already been applied"], []),
    ("Which Azure SQL tier is staging on?", ["sqlSkuName = 'S3'", "Staging is S3"], ["sqlSkuName = 'S1'"]),
    ("What level does EF Core log at?", ["\"Microsoft.EntityFrameworkCore\": \"Warning\""],
     ["\"Microsoft.EntityFrameworkCore\": \"Information\""]),
    ("Why was App Insights ingestion so high?", ["14 GB a day", "logging every SQL command"], []),
    ("Where is staging hosted?", ["Container Apps", "ca-heron-api"], ["app-heron-api-staging.azurewebsites.net"]),
    ("Why did we leave App Service?", ["scale on the length", "P1v3 plan costs more"], []),
    ("Which container registry do we push images to?", ["brightpawcr.azurecr.io"], ["heronacr.azurecr.io"]),
    ("Why was the new container app unhealthy after the first deploy?", ["listen on port 8080", "ProbeFailure"], []),
    ("What port does the API container listen on in Azure?", ["targetPort: 8080"], []),
    ("How does staging get deployed?", ["deploy.yml", "az containerapp update"], []),
    ("Can I run the prod migrations myself with az login?", ["Never run migrations against prod from a laptop"], []),
    ("How do schema changes reach production?", ["migrate-prod", "efbundle", "migrations bundle"], []),
    ("Why did the prod migration job fail the first time?", ["token-identified principal",
                                                             "FROM EXTERNAL PROVIDER"], []),
    ("Is self-service cancellation enabled in production?", ["\"state\": \"on\""], ["\"state\": \"off\""]),
    ("Up to when can clients cancel on their own?", ["\"CancellationCutoffHours\": 12", "12 hours before"],
     ["\"CancellationCutoffHours\": 24"]),
    ("How many replicas can the production API scale out to?", ["apiMaxReplicas = 6", "maxReplicas 6"],
     ["apiMaxReplicas = 3", "--max-replicas 10"]),
    ("What's the SQL connection pool size per replica?", ["Max Pool Size=30"], []),
    ("What caused the SQL errors on Monday morning?", ["request limit for the database is 200", "10928"], []),
    ("What do I have to do after changing something with the az CLI by hand?",
     ["goes back into Bicep the same day"], []),
    ("What should I run before deploying Bicep?", ["what-if"], []),
    ("Which .NET SDK does global.json pin?", ["8.0.401"], ["\"version\": \"8.0.204\""]),
    ("Why wouldn't the build start on the new laptop?", ["A compatible .NET SDK was not found"], []),
    ("What's left to do?", ["GP_S_Gen5_2", "dead-lettered", "Playwright"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("apiMaxReplicas = 6", "6 replicas", "maxReplicas 6"), ("Max Pool Size=30", "pool of 30"),
              ("8.0.401",), ("\"ReminderLeadHours\": 48", "48 hours"),
              ("GP_S_Gen5_2", "dead-lettered", "Playwright")],
    "stale": ["--max-replicas 10", "apiMaxReplicas = 3", "\"version\": \"8.0.204\"", "\"ReminderLeadHours\": 24",
              "\"AccessTokenMinutes\": 60", "appointment-reminders", "localhost:5080", "\"DefaultSlotMinutes\": 15",
              "\"CancellationCutoffHours\": 24", "localhost:3000", "heronacr.azurecr.io", "sqlSkuName = 'S1'",
              "*/15 * * * *", "\"0 6 * * *\""],
}
