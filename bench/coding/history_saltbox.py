"""History F (held out): nine weeks of Claude Code sessions on "saltbox", a meal-kit subscription app.

saltbox is a Ruby on Rails 7.1 app (Ruby 3.3) for a small meal-kit company in Hamburg: Postgres 16, Sidekiq on
Redis with sidekiq-cron for the weekly order run, RSpec with FactoryBot, Hotwire/Turbo on the front end, Stripe for
subscriptions, deployed with Kamal to two Hetzner servers. Over seven sessions values change in varied ways: the
local dev port (the reason and the change in one turn), the packing-slip PDF gem (wicked_pdf's problems discussed in
one session, the switch to Prawn done in the next), the menu cache TTL ("make it 10 minutes"), the Ruby patch
version (forced by a YJIT segfault), the staging hostname (corrected by the user), the weekly order cron (Thursday
18:00 to Wednesday 22:00), the skip cutoff (the user only states the new value), the Sidekiq concurrency (5, then 12,
then back down to 10 after an OOM) and its database pool, the Stripe event job's retry count and queue, the system
spec driver (selenium-webdriver replaced by cuprite) and the login throttle. Commands fail and are fixed, the user
corrects the assistant and states preferences, and the last session ends with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers and the
file layout of history D were read), so it checks that recall generalises to a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "saltbox"

SESSIONS = [
    ("sb1-local-setup", 63, [
        User("Picking saltbox back up after a few months away. Get me a working local setup. Postgres and Redis "
             "in docker compose please, I don't want either of them installed through Homebrew again."),
        Assistant("I'll check the Gemfile and database config first, then add a compose file with Postgres 16 and "
                  "Redis 7 and point the app at them.",
                  [Read("Gemfile",
                        "source \"https://rubygems.org\"\n\nruby \"3.3.0\"\n\ngem \"rails\", \"~> 7.1.3\"\n"
                        "gem \"pg\", \"~> 1.5\"\ngem \"puma\", \">= 5.0\"\ngem \"importmap-rails\"\n"
                        "gem \"turbo-rails\"\ngem \"stimulus-rails\"\ngem \"tailwindcss-rails\"\n"
                        "gem \"stripe\", \"~> 10.10\"\ngem \"wicked_pdf\"\ngem \"wkhtmltopdf-binary\"\n"
                        "gem \"redis\", \">= 4.0.1\"\n\ngroup :development, :test do\n  gem \"dotenv-rails\"\n"
                        "  gem \"rspec-rails\", \"~> 6.1\"\n  gem \"factory_bot_rails\"\nend\n\ngroup :test do\n"
                        "  gem \"capybara\"\n  gem \"selenium-webdriver\"\nend\n"),
                   Write("docker-compose.yml",
                         "services:\n  db:\n    image: postgres:16\n    environment:\n"
                         "      POSTGRES_PASSWORD: postgres\n    ports:\n      - \"5432:5432\"\n    volumes:\n"
                         "      - pgdata:/var/lib/postgresql/data\n  redis:\n    image: redis:7\n    ports:\n"
                         "      - \"6379:6379\"\nvolumes:\n  pgdata:\n"),
                   Bash("docker compose up -d",
                        "[+] Running 4/4\n ✔ Network saltbox_default    Created\n"
                        " ✔ Volume \"saltbox_pgdata\"    Created\n ✔ Container saltbox-redis-1  Started\n"
                        " ✔ Container saltbox-db-1     Started"),
                   Bash("bin/rails db:prepare",
                        "bin/rails aborted!\nActiveRecord::ConnectionNotEstablished: connection to server at "
                        "\"127.0.0.1\", port 5432 failed: FATAL:  role \"saltbox\" does not exist\n\n"
                        "Caused by:\nPG::ConnectionBad: connection to server at \"127.0.0.1\", port 5432 failed: "
                        "FATAL:  role \"saltbox\" does not exist\n\nTasks: TOP => db:prepare", ok=False)]),
        Assistant("db:prepare failed because config/database.yml connects as the role saltbox, and the postgres "
                  "image only creates the postgres superuser. I set POSTGRES_USER=saltbox and "
                  "POSTGRES_PASSWORD=saltbox on the db service and recreated the volume (the image only reads "
                  "those variables when the data directory is empty), and put "
                  "DATABASE_URL=postgres://saltbox:saltbox@localhost:5432/saltbox_development in .env, which "
                  "dotenv-rails loads. db:prepare now creates the development and test databases and loads the "
                  "schema.",
                  [Edit("docker-compose.yml", "      POSTGRES_PASSWORD: postgres\n",
                        "      POSTGRES_USER: saltbox\n      POSTGRES_PASSWORD: saltbox\n"),
                   Bash("docker compose down -v && docker compose up -d",
                        "[+] Running 4/4\n ✔ Container saltbox-db-1     Removed\n ✔ Volume saltbox_pgdata      "
                        "Removed\n ✔ Container saltbox-db-1     Started\n ✔ Container saltbox-redis-1  Started"),
                   Write(".env", "DATABASE_URL=postgres://saltbox:saltbox@localhost:5432/saltbox_development\n"
                         "REDIS_URL=redis://localhost:6379/1\n"),
                   Bash("bin/rails db:prepare",
                        "Created database 'saltbox_development'\nCreated database 'saltbox_test'")]),
        User("Good. How's the test suite?"),
        Assistant("I ran the whole suite with bundle exec rspec. Three failures on the first run, all with "
                  "the same cause: the subscription model spec and two request specs call "
                  "create(:subscription, :paused), but the subscriptions factory still only had an :on_hold trait "
                  "from before the status was renamed. I replaced it with a :paused trait. "
                  "The suite is green now: 412 examples, 0 failures, 3 pending.",
                  [Bash("bundle exec rspec",
                        "Randomized with seed 40211\n...F.....F..F\n\nFailures:\n\n  1) Subscription#skippable? "
                        "is false for a paused subscription\n     Failure/Error: let(:subscription) { "
                        "create(:subscription, :paused) }\n\n     KeyError:\n       Trait not registered: "
                        "\"paused\"\n\nFinished in 38.2 seconds (files took 2.1 seconds to load)\n"
                        "412 examples, 3 failures, 3 pending", ok=False),
                   Edit("spec/factories/subscriptions.rb",
                        "    trait :on_hold do\n      status { \"on_hold\" }\n    end\n",
                        "    trait :paused do\n      status { \"paused\" }\n      paused_at { 2.days.ago }\n"
                        "    end\n"),
                   Bash("bundle exec rspec",
                        "Finished in 37.6 seconds (files took 2.0 seconds to load)\n"
                        "412 examples, 0 failures, 3 pending")]),
        User("While you're in there: never use let! in these specs, it hides setup and every example pays for "
             "it. And prefer build_stubbed over create unless the example really needs rows in the database."),
        Assistant("Understood: no let!, and build_stubbed by default, create only when the example actually "
                  "queries the database. There were 11 let! calls in the suite. I converted the ones in "
                  "spec/models to plain let (or explicit setup inside the examples that need it) and switched the "
                  "model specs that never hit the database to build_stubbed. The model specs went from 9.8s to "
                  "4.1s. The remaining let! calls are in request specs; I'll clean those up as we touch them.",
                  [Bash("grep -rn 'let!' spec | wc -l", "11"),
                   Edit("spec/models/subscription_spec.rb",
                        "  let!(:subscription) { create(:subscription, plan: plan) }",
                        "  let(:subscription) { build_stubbed(:subscription, plan: plan) }"),
                   Bash("bundle exec rspec spec/models",
                        "Finished in 4.1 seconds (files took 1.9 seconds to load)\n188 examples, 0 failures")]),
        User("Now background jobs. Everything runs on the async adapter right now, so the weekly order generation "
             "dies whenever puma restarts. Set up Sidekiq properly."),
        Assistant("Sidekiq 7 on the Redis from the compose file, sidekiq-cron for the recurring jobs, and ActiveJob "
                  "pointed at Sidekiq so none of the existing job classes change. Sidekiq runs with concurrency: 5 "
                  "on two queues, default and mailers. WeeklyOrdersJob is scheduled from config/schedule.yml every "
                  "Thursday at 18:00 Berlin time (cron \"0 18 * * 4\"). The Sidekiq dashboard is mounted at "
                  "/admin/sidekiq behind a logged-in check, and Procfile.dev now starts web, worker and the "
                  "tailwind watcher, so bin/dev brings everything up.",
                  [Todo([("Add sidekiq and sidekiq-cron", "in_progress"),
                         ("Point ActiveJob at Sidekiq", "pending"),
                         ("Schedule WeeklyOrdersJob", "pending"),
                         ("Mount the Sidekiq dashboard", "pending"),
                         ("Add the worker to Procfile.dev", "pending")]),
                   Bash("bundle add sidekiq sidekiq-cron",
                        "Fetching gem metadata from https://rubygems.org/.........\nFetching sidekiq 7.2.4\n"
                        "Fetching sidekiq-cron 1.12.0\nInstalling sidekiq 7.2.4\nInstalling sidekiq-cron 1.12.0\n"
                        "Bundle complete! 31 Gemfile dependencies, 112 gems now installed."),
                   Write("config/sidekiq.yml", ":concurrency: 5\n:queues:\n  - default\n  - mailers\n"),
                   Write("config/initializers/sidekiq.rb",
                         "Sidekiq.configure_server do |config|\n"
                         "  config.redis = { url: ENV.fetch(\"REDIS_URL\", \"redis://localhost:6379/1\") }\n"
                         "  config.on(:startup) do\n"
                         "    schedule = YAML.load_file(Rails.root.join(\"config/schedule.yml\"))\n"
                         "    Sidekiq::Cron::Job.load_from_hash!(schedule)\n  end\nend\n\n"
                         "Sidekiq.configure_client do |config|\n"
                         "  config.redis = { url: ENV.fetch(\"REDIS_URL\", \"redis://localhost:6379/1\") }\nend\n"),
                   Write("config/schedule.yml",
                         "weekly_orders:\n  cron: \"0 18 * * 4 Europe/Berlin\"\n  class: \"WeeklyOrdersJob\"\n"
                         "  queue: default\n"),
                   Edit("config/application.rb", "    config.time_zone = \"Europe/Berlin\"\n",
                        "    config.time_zone = \"Europe/Berlin\"\n    config.active_job.queue_adapter = :sidekiq\n"),
                   Edit("config/routes.rb", "Rails.application.routes.draw do\n",
                        "require \"sidekiq/web\"\nrequire \"sidekiq/cron/web\"\n\n"
                        "Rails.application.routes.draw do\n"
                        "  constraints ->(req) { req.session[:user_id].present? } do\n"
                        "    mount Sidekiq::Web => \"/admin/sidekiq\"\n  end\n"),
                   Write("Procfile.dev", "web: bin/rails server -p 3000\n"
                         "worker: bundle exec sidekiq -C config/sidekiq.yml\ncss: bin/rails tailwindcss:watch\n")]),
        User("Thursday 18:00 is right, the menu for the following week locks at 17:00. Start it all up."),
        Assistant("Everything is up via bin/dev. The app is on http://localhost:3000, the worker connected to Redis "
                  "database 1 and registered the weekly_orders cron job.",
                  [Bash("bin/dev",
                        "13:02:11 web.1    | * Listening on http://127.0.0.1:3000\n"
                        "13:02:12 worker.1 | INFO: Booting Sidekiq 7.2.4 with Sidekiq::RedisConnection::"
                        "RedisClientAdapter options {:url=>\"redis://localhost:6379/1\"}\n"
                        "13:02:12 worker.1 | INFO: Cron Jobs - added job with name: weekly_orders\n"
                        "13:02:13 css.1    | Done in 312ms.")]),
        User("the menu page takes almost a second to render"),
        Assistant("The /menu page renders all 14 recipes of the week with their allergen and nutrition partials, "
                  "about 90 queries. I wrapped the recipe grid in Rails.cache.fetch keyed on the delivery week with "
                  "expires_in: 1.hour, and moved the cache store to Redis database 2 so it stays apart from "
                  "Sidekiq's database 1. On a warm cache the page now renders in 140ms instead of 930ms. The "
                  "cached grid lives for 1 hour.",
                  [Edit("app/controllers/menus_controller.rb",
                        "    @recipes = @menu.recipes.includes(:allergens, :nutrition)\n",
                        "    @recipes_html = Rails.cache.fetch([\"weekly_menu\", @week], expires_in: 1.hour) do\n"
                        "      render_to_string(partial: \"menus/recipe_grid\",\n"
                        "                       locals: { recipes: @menu.recipes.includes(:allergens, "
                        ":nutrition) })\n    end\n"),
                   Edit("config/environments/development.rb", "  config.cache_store = :memory_store\n",
                        "  config.cache_store = :redis_cache_store,\n"
                        "    { url: ENV.fetch(\"REDIS_CACHE_URL\", \"redis://localhost:6379/2\") }\n"),
                   Bash("bin/rails dev:cache", "Development mode is now being cached."),
                   Bash("curl -s -o /dev/null -w '%{time_total}\\n' http://localhost:3000/menu", "0.141")]),
    ]),
    ("sb2-stripe-webhooks", 55, [
        User("Stripe. We still find failed payments with a rake task that polls the Stripe API every hour, which "
             "is silly. Move us to webhooks."),
        Assistant("I'll add a webhook endpoint at POST /webhooks/stripe and handle the events we care about: "
                  "invoice.paid, invoice.payment_failed, customer.subscription.updated and "
                  "customer.subscription.deleted. First version of the controller:",
                  [Todo([("Webhook endpoint with signature verification", "in_progress"),
                         ("Handle invoice.payment_failed", "pending"),
                         ("Remove the hourly polling task", "pending"),
                         ("Request specs for the webhook", "pending")]),
                   Edit("config/routes.rb", "  root \"menus#show\"\n",
                        "  root \"menus#show\"\n  post \"/webhooks/stripe\", to: \"stripe_webhooks#create\"\n"),
                   Write("app/controllers/stripe_webhooks_controller.rb",
                         "class StripeWebhooksController < ActionController::API\n  def create\n"
                         "    event = Stripe::Webhook.construct_event(request.body.read,\n"
                         "      request.headers[\"Stripe-Signature\"], webhook_secret)\n    case event.type\n"
                         "    when \"invoice.paid\" then Billing.invoice_paid(event.data.object)\n"
                         "    when \"invoice.payment_failed\" then Billing.payment_failed(event.data.object)\n"
                         "    when /\\Acustomer\\.subscription\\./ then Billing.sync_subscription(event.data.object)\n"
                         "    end\n    head :ok\n  rescue JSON::ParserError, Stripe::SignatureVerificationError\n"
                         "    head :bad_request\n  end\nend\n")]),
        User("no, don't do the work in the controller. Verify the signature, store the event, enqueue a job, "
             "return 200. invoice.paid fans out to emails and PDFs, and Stripe only waits a few seconds before "
             "it counts the delivery as failed and sends it again."),
        Assistant("Right, the controller now only verifies, stores and enqueues, then returns 200. Events go into a "
                  "stripe_events table with a unique index on stripe_id; the insert uses ON CONFLICT DO NOTHING, "
                  "so when Stripe redelivers an event we already have, nothing is enqueued a second time. "
                  "StripeEventJob loads the row, dispatches on the event type and stamps processed_at. It runs on "
                  "the default queue with sidekiq_options retry: 5.",
                  [Write("db/migrate/20240612091500_create_stripe_events.rb",
                         "class CreateStripeEvents < ActiveRecord::Migration[7.1]\n  def change\n"
                         "    create_table :stripe_events do |t|\n      t.string :stripe_id, null: false\n"
                         "      t.string :event_type, null: false\n      t.jsonb :payload, null: false\n"
                         "      t.datetime :processed_at\n      t.timestamps\n    end\n"
                         "    add_index :stripe_events, :stripe_id, unique: true\n  end\nend\n"),
                   Write("app/controllers/stripe_webhooks_controller.rb",
                         "class StripeWebhooksController < ActionController::API\n  def create\n"
                         "    event = Stripe::Webhook.construct_event(request.body.read,\n"
                         "      request.headers[\"Stripe-Signature\"], webhook_secret)\n"
                         "    result = StripeEvent.insert(\n"
                         "      { stripe_id: event.id, event_type: event.type, payload: event.to_hash },\n"
                         "      unique_by: :stripe_id, returning: :id)\n"
                         "    StripeEventJob.perform_later(result.rows.first.first) if result.rows.any?\n"
                         "    head :ok\n  rescue JSON::ParserError, Stripe::SignatureVerificationError\n"
                         "    head :bad_request\n  end\nend\n"),
                   Write("app/jobs/stripe_event_job.rb",
                         "class StripeEventJob < ApplicationJob\n  queue_as :default\n"
                         "  sidekiq_options retry: 5\n\n  def perform(stripe_event_id)\n"
                         "    event = StripeEvent.find(stripe_event_id)\n    return if event.processed_at?\n\n"
                         "    StripeEvents::Dispatcher.new(event).call\n"
                         "    event.update!(processed_at: Time.current)\n  end\nend\n"),
                   Bash("bin/rails db:migrate",
                        "== 20240612091500 CreateStripeEvents: migrating ==============================\n"
                        "-- create_table(:stripe_events)\n   -> 0.0062s\n-- add_index(:stripe_events, :stripe_id, "
                        "{:unique=>true})\n   -> 0.0021s\n== 20240612091500 CreateStripeEvents: migrated (0.0084s) "
                        "====="),
                   Bash("bundle exec rspec spec/requests/stripe_webhooks_spec.rb",
                        "Finished in 0.61 seconds (files took 2.2 seconds to load)\n5 examples, 0 failures")]),
        User("How do I try this against real Stripe events locally?"),
        Assistant("With the Stripe CLI: run `stripe listen --forward-to localhost:3000/webhooks/stripe` in a "
                  "separate terminal and fire test events with `stripe trigger`. Trying it now:",
                  [Bash("stripe listen --forward-to localhost:3000/webhooks/stripe",
                        "> Ready! You are using Stripe API Version [2023-10-16]. Your webhook signing secret is "
                        "whsec_3f9c0d2a8e71b54f (^C to quit)"),
                   Bash("stripe trigger invoice.payment_failed",
                        "Setting up fixture for: customer\nRunning fixture for: customer\n"
                        "Setting up fixture for: invoiceitem\nRunning fixture for: invoice\n"
                        "Trigger succeeded! Check dashboard for event details."),
                   Bash("tail -n 4 log/development.log",
                        "Started POST \"/webhooks/stripe\" for 127.0.0.1 at 2024-06-12 10:14:03 +0200\n"
                        "Processing by StripeWebhooksController#create as JSON\n"
                        "Completed 400 Bad Request in 3ms (ActiveRecord: 0.0ms | Allocations: 412)", ok=False)]),
        Assistant("Every forwarded event came back 400: signature verification failed. .env had "
                  "STRIPE_WEBHOOK_SECRET set to the secret of the test-mode endpoint in the Stripe dashboard, but "
                  "events forwarded by stripe listen are signed with the CLI's own secret, the whsec_ it prints "
                  "when it starts. I put that one in .env.development.local, which overrides .env and is "
                  "gitignored. Triggered events now get a 200 and StripeEventJob processes them.",
                  [Edit(".env.development.local", "", "STRIPE_WEBHOOK_SECRET=whsec_3f9c0d2a8e71b54f\n"),
                   Bash("stripe trigger invoice.payment_failed && sleep 2 && grep -E 'Completed|StripeEventJob' "
                        "log/development.log | tail -n 2",
                        "Trigger succeeded! Check dashboard for event details.\n"
                        "Completed 200 OK in 9ms (ActiveRecord: 2.1ms | Allocations: 3120)\n"
                        "Performed StripeEventJob (Job ID: 4c1e0f2b) from Sidekiq(default) in 84.3ms")]),
        User("Handle payment_failed: mark the subscription past_due, email the customer, pause it after the third "
             "failed attempt. And never cancel a subscription in Stripe from code. Pausing only, cancelling stays "
             "a manual thing support does in the dashboard."),
        Assistant("Done. On invoice.payment_failed the dispatcher marks the subscription past_due and sends "
                  "BillingMailer.payment_failed with the hosted invoice link. When attempt_count reaches 3 it "
                  "pauses: pause_collection with behavior void on the Stripe subscription, so Stripe stops "
                  "creating invoices we'd have to chase, and status paused locally. Nothing in app/ or lib/ "
                  "cancels in Stripe any more: the only Stripe::Subscription.cancel call was in the old polling "
                  "task lib/tasks/billing.rake, which I deleted together with its hourly cron since the webhooks "
                  "replace it. A spec now fails if anyone adds a cancel call again.",
                  [Edit("app/models/stripe_events/dispatcher.rb",
                        "    when \"invoice.payment_failed\" then nil\n",
                        "    when \"invoice.payment_failed\"\n      invoice = @event.payload.dig(\"data\", \"object\")\n"
                        "      subscription = Subscription.find_by!(stripe_subscription_id: invoice[\"subscription\"])\n"
                        "      subscription.mark_past_due!\n"
                        "      BillingMailer.payment_failed(subscription, invoice[\"hosted_invoice_url\"]).deliver_later\n"
                        "      subscription.pause!(reason: :payment_failed) if invoice[\"attempt_count\"] >= 3\n"),
                   Edit("app/models/subscription.rb", "  def pause!\n",
                        "  def pause!(reason:)\n"
                        "    Stripe::Subscription.update(stripe_subscription_id,\n"
                        "                                pause_collection: { behavior: \"void\" })\n"
                        "    update!(status: \"paused\", paused_at: Time.current, pause_reason: reason)\n  end\n\n"
                        "  def legacy_pause!\n"),
                   Bash("grep -rn 'Subscription.cancel' app lib",
                        "lib/tasks/billing.rake:41:      Stripe::Subscription.cancel(sub.stripe_subscription_id) "
                        "if sub.failed_attempts > 4"),
                   Bash("rm lib/tasks/billing.rake && bundle exec rspec spec/models spec/requests",
                        "Finished in 12.9 seconds (files took 2.0 seconds to load)\n"
                        "301 examples, 0 failures, 1 pending")]),
        User("Skipping next. Customers can skip a week up to 72 hours before their delivery. Put the cutoff in "
             "config, don't hard-code it."),
        Assistant("The cutoff is config.x.saltbox.skip_cutoff = 72.hours in config/application.rb. "
                  "Delivery#skippable? compares the start of the delivery day (Berlin time) minus that cutoff "
                  "with now, the 'Skip this week' button is a button_to that PATCHes /deliveries/:id/skip, and the "
                  "controller answers with a turbo_stream.replace of the delivery card, so the page doesn't "
                  "reload. Specs pass: 431 examples, 0 failures.",
                  [Edit("config/application.rb", "    config.active_job.queue_adapter = :sidekiq\n",
                        "    config.active_job.queue_adapter = :sidekiq\n"
                        "    config.x.saltbox.skip_cutoff = 72.hours\n"),
                   Edit("app/models/delivery.rb", "  belongs_to :subscription\n",
                        "  belongs_to :subscription\n\n  def skippable?(now: Time.current)\n"
                        "    delivery_date.in_time_zone.beginning_of_day - "
                        "Rails.configuration.x.saltbox.skip_cutoff > now\n  end\n"),
                   Write("app/views/deliveries/skip.turbo_stream.erb",
                         "<%= turbo_stream.replace @delivery do %>\n"
                         "  <%= render \"deliveries/card\", delivery: @delivery %>\n<% end %>\n"),
                   Bash("bundle exec rspec",
                        "Finished in 41.0 seconds (files took 2.1 seconds to load)\n"
                        "431 examples, 0 failures, 3 pending")]),
        User("Where does the Stripe secret key come from in production?"),
        Assistant("From the production credentials: config/initializers/stripe.rb sets Stripe.api_key from "
                  "Rails.application.credentials.stripe[:secret_key] and pins Stripe.api_version to 2023-10-16. "
                  "The webhook secret is credentials.stripe[:webhook_secret] in production and falls back to "
                  "ENV[\"STRIPE_WEBHOOK_SECRET\"] in development. To change them run "
                  "`bin/rails credentials:edit --environment production`; it needs "
                  "config/credentials/production.key, which lives in 1Password, not in git.",
                  [Read("config/initializers/stripe.rb",
                        "Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key) || "
                        "ENV[\"STRIPE_SECRET_KEY\"]\nStripe.api_version = \"2023-10-16\"\n"
                        "Stripe.max_network_retries = 2\n")]),
    ]),
    ("sb3-menu-cache-port", 46, [
        User("The kitchen says when they publish a menu change it takes up to an hour to show up on the site. "
             "That's your cache. Bust it when the menu changes, and make it 10 minutes anyway."),
        Assistant("Yes, that's the 1.hour expiry on a key that only contained the week, so edits never changed the "
                  "key. The key is now the WeeklyMenu record itself, whose cache_key_with_version includes "
                  "updated_at, and menu_items and recipes touch their weekly menu on save, so a published change "
                  "produces a new key immediately. On top of that the entry expires after 10 minutes "
                  "(expires_in: 10.minutes) as you asked. Added a request spec that edits a recipe title and "
                  "expects the new title on the next request.",
                  [Edit("app/controllers/menus_controller.rb",
                        "    @recipes_html = Rails.cache.fetch([\"weekly_menu\", @week], expires_in: 1.hour) do\n",
                        "    @recipes_html = Rails.cache.fetch([@menu, \"recipe_grid\"], expires_in: 10.minutes) do\n"),
                   Edit("app/models/menu_item.rb", "  belongs_to :weekly_menu\n",
                        "  belongs_to :weekly_menu, touch: true\n"),
                   Edit("app/models/recipe.rb", "  has_many :menu_items\n",
                        "  has_many :menu_items\n  after_save_commit { menu_items.each { |item| "
                        "item.weekly_menu.touch } }\n"),
                   Bash("bundle exec rspec spec/requests/menus_spec.rb",
                        "Finished in 1.4 seconds (files took 2.1 seconds to load)\n7 examples, 0 failures")]),
        User("Other thing: packing slips. wicked_pdf has been a pain since day one. wkhtmltopdf is archived "
             "upstream, there are no arm64 builds of the patched-qt binary so it doesn't even run on my Mac, and "
             "it bloats the docker image. I want it gone before we move to Kamal."),
        Assistant("Agreed it should go. The packing slips are the only PDFs we make (PackingSlipsController#show "
                  "and PackingSlipBatchJob, which renders the whole week for the kitchen). Two realistic "
                  "replacements: Prawn, pure Ruby with no external binary, where the slip layout is written in "
                  "Ruby instead of HTML; or Grover, which renders our existing HTML with headless Chrome via "
                  "Puppeteer but needs Node and Chromium in the image, which is worse than what we have now. I'd "
                  "go with Prawn plus prawn-table: the slip is a header, an address block and one table, so "
                  "rewriting the layout is maybe half a day. The wkhtmltopdf-binary gem alone accounts for about "
                  "300 MB of the current 1.21GB image.",
                  [Bash("docker image ls saltbox --format '{{.Repository}}:{{.Tag}} {{.Size}}'",
                        "saltbox:latest 1.21GB"),
                   Bash("du -sh $(bundle show wkhtmltopdf-binary)",
                        "297M\t/Users/jonas/.gem/ruby/3.3.0/gems/wkhtmltopdf-binary-0.12.6.7")]),
        User("Agreed on Prawn, but not today, put it on the list. Different thing: move the dev server off 3000. "
             "The marketing site (Next.js) runs on 3000 on everyone's machine and we keep landing in the wrong "
             "app."),
        Assistant("Moved: Procfile.dev now starts puma with -p 3100 and APP_HOST in .env is localhost:3100, so "
                  "links in development emails point at the right app. The Stripe CLI forward has to follow, so "
                  "from now on it's `stripe listen --forward-to localhost:3100/webhooks/stripe`; I updated the "
                  "README's local setup section too.",
                  [Edit("Procfile.dev", "web: bin/rails server -p 3000\n", "web: bin/rails server -p 3100\n"),
                   Edit(".env", "APP_HOST=localhost:3000\n", "APP_HOST=localhost:3100\n"),
                   Edit("README.md", "stripe listen --forward-to localhost:3000/webhooks/stripe",
                        "stripe listen --forward-to localhost:3100/webhooks/stripe"),
                   Bash("bin/dev", "09:12:40 web.1    | * Listening on http://127.0.0.1:3100\n"
                        "09:12:41 worker.1 | INFO: Booting Sidekiq 7.2.4 with Sidekiq::RedisConnection::"
                        "RedisClientAdapter options {:url=>\"redis://localhost:6379/1\"}")]),
        User("Also just noticed any logged-in customer can open /admin/sidekiq. Fix that."),
        Assistant("The route constraint only checked that someone was logged in. It now goes through an "
                  "AdminConstraint that loads the user from the session and requires admin: true, so everyone "
                  "else gets a 404 rather than a hint that the page exists. Request specs cover a guest, a "
                  "customer and an admin.",
                  [Write("app/constraints/admin_constraint.rb",
                         "class AdminConstraint\n  def matches?(request)\n"
                         "    user_id = request.session[:user_id]\n"
                         "    user_id.present? && User.where(id: user_id, admin: true).exists?\n  end\nend\n"),
                   Edit("config/routes.rb", "  constraints ->(req) { req.session[:user_id].present? } do\n",
                        "  constraints AdminConstraint.new do\n"),
                   Bash("bundle exec rspec spec/requests/admin/sidekiq_access_spec.rb",
                        "Finished in 0.9 seconds (files took 2.0 seconds to load)\n3 examples, 0 failures")]),
        User("Run the full suite before I push."),
        Assistant("Running everything, system specs included.",
                  [Bash("bundle exec rspec",
                        "Failures:\n\n  1) Skipping a week shows the skipped state\n"
                        "     Failure/Error: visit account_deliveries_path\n\n"
                        "     Selenium::WebDriver::Error::SessionNotCreatedError:\n"
                        "       session not created: This version of ChromeDriver only supports Chrome version "
                        "124\n       Current browser version is 125.0.6422.60\n\n"
                        "442 examples, 36 failures, 3 pending", ok=False)]),
        Assistant("All 36 failures are system specs failing before they start: Chrome updated itself to 125 and "
                  "the cached chromedriver is for 124. Our selenium-webdriver 4.10 predates Selenium Manager "
                  "fetching matching drivers reliably, so I ran `bundle update selenium-webdriver` (4.10.0 to "
                  "4.21.1), which downloads the chromedriver matching the installed Chrome. Full suite green: "
                  "442 examples, 0 failures, 3 pending.",
                  [Bash("bundle update selenium-webdriver",
                        "Fetching selenium-webdriver 4.21.1\nInstalling selenium-webdriver 4.21.1 (was 4.10.0)\n"
                        "Bundle updated!"),
                   Bash("bundle exec rspec",
                        "Finished in 1 minute 58.2 seconds (files took 2.1 seconds to load)\n"
                        "442 examples, 0 failures, 3 pending")]),
        User("What's still open from today?"),
        Assistant("Everything from today is done except the PDF switch you deferred.",
                  [Todo([("Bust the menu cache on publish, 10 minute expiry", "completed"),
                         ("Move the dev server to port 3100", "completed"),
                         ("Restrict /admin/sidekiq to admins", "completed"),
                         ("Fix chromedriver mismatch in system specs", "completed"),
                         ("Replace wicked_pdf with Prawn for packing slips", "pending")])]),
    ]),
    ("sb4-kamal-deploy", 38, [
        User("Kamal week. First the Prawn switch from last time, I don't want wkhtmltopdf in the image we ship."),
        Assistant("wicked_pdf and wkhtmltopdf-binary are out of the Gemfile, prawn and prawn-table are in. The "
                  "packing slip is now a plain Ruby class, app/pdfs/packing_slip_pdf.rb, which draws the header "
                  "with the delivery week, the address block and the recipe table with portions and allergens. "
                  "PackingSlipsController and PackingSlipBatchJob call PackingSlipPdf.new(order).render. The specs "
                  "check the text with pdf-inspector. The image dropped from 1.21GB to 874MB.",
                  [Edit("Gemfile", "gem \"wicked_pdf\"\ngem \"wkhtmltopdf-binary\"\n",
                        "gem \"prawn\", \"~> 2.5\"\ngem \"prawn-table\", \"~> 0.2\"\n"),
                   Write("app/pdfs/packing_slip_pdf.rb",
                         "class PackingSlipPdf\n  include Prawn::View\n\n  def initialize(order)\n"
                         "    @order = order\n    header\n    address_block\n    recipe_table\n  end\n\n"
                         "  private\n\n  def header\n    text \"Saltbox\", size: 20, style: :bold\n"
                         "    text \"Delivery week #{@order.delivery_date.cweek}\", size: 11\n  end\n\n"
                         "  def recipe_table\n    rows = @order.order_items.map { |i| [i.recipe.title, i.portions, "
                         "i.recipe.allergen_codes.join(\", \")] }\n"
                         "    table([[\"Recipe\", \"Portions\", \"Allergens\"], *rows], header: true, "
                         "width: bounds.width)\n  end\nend\n"),
                   Bash("bundle install && bundle exec rspec spec/pdfs spec/requests/packing_slips_spec.rb",
                        "Bundle complete! 32 Gemfile dependencies, 110 gems now installed.\n"
                        "Finished in 1.2 seconds (files took 2.0 seconds to load)\n6 examples, 0 failures"),
                   Bash("docker build -t saltbox . -q && docker image ls saltbox --format '{{.Size}}'",
                        "sha256:9b2f1e0c4d\n874MB")]),
        User("Now Kamal. Two Hetzner boxes are ready: saltbox-app-1 at 168.119.43.17 and saltbox-app-2 at "
             "168.119.43.58, private network 10.0.0.0/16 between them, and a Hetzner load balancer in front that "
             "does TLS. Web on both, Sidekiq only on app-2, Postgres and Redis as accessories on app-2. Staging "
             "goes on app-2 as well."),
        Assistant("Set up with Kamal 2. config/deploy.yml: service saltbox, image pushed to ghcr.io/saltbox-dev, "
                  "web role on both hosts behind kamal-proxy (ssl off, the load balancer terminates TLS), job role "
                  "on app-2 only running `bundle exec sidekiq -C config/sidekiq.yml`, and db (postgres:16) and "
                  "redis (redis:7) accessories on app-2 bound to its private address 10.0.0.3, so app-1 reaches "
                  "them over the private network and nothing is exposed publicly. config/deploy.staging.yml deploys "
                  "saltbox-staging to app-2 only, with kamal-proxy doing Let's Encrypt for staging.saltbox.io.",
                  [Bash("bundle add kamal --group development && bin/kamal init",
                        "Installing kamal 2.2.2\nCreated configuration file in config/deploy.yml\n"
                        "Created .kamal/secrets file\nCreated sample hooks in .kamal/hooks"),
                   Write("config/deploy.yml",
                         "service: saltbox\nimage: saltbox-dev/saltbox\n\nservers:\n  web:\n    hosts:\n"
                         "      - 168.119.43.17\n      - 168.119.43.58\n  job:\n    hosts:\n      - 168.119.43.58\n"
                         "    cmd: bundle exec sidekiq -C config/sidekiq.yml\n\nproxy:\n  ssl: false\n"
                         "  host: app.saltboxmeals.com\n  app_port: 3000\n  healthcheck:\n    path: /up\n\n"
                         "registry:\n  server: ghcr.io\n  username: saltbox-dev\n  password:\n"
                         "    - KAMAL_REGISTRY_PASSWORD\n\nenv:\n  clear:\n"
                         "    REDIS_URL: redis://10.0.0.3:6379/1\n    REDIS_CACHE_URL: redis://10.0.0.3:6379/2\n"
                         "  secret:\n    - RAILS_MASTER_KEY\n    - DATABASE_URL\n\naliases:\n"
                         "  console: app exec --interactive --reuse \"bin/rails console\"\n\naccessories:\n"
                         "  db:\n    image: postgres:16\n    host: 168.119.43.58\n    port: \"10.0.0.3:5432:5432\"\n"
                         "    env:\n      secret:\n        - POSTGRES_PASSWORD\n    directories:\n"
                         "      - data:/var/lib/postgresql/data\n  redis:\n    image: redis:7\n"
                         "    host: 168.119.43.58\n    port: \"10.0.0.3:6379:6379\"\n    directories:\n"
                         "      - data:/data\n"),
                   Write("config/deploy.staging.yml",
                         "service: saltbox-staging\nservers:\n  web:\n    hosts:\n      - 168.119.43.58\n"
                         "  job:\n    hosts:\n      - 168.119.43.58\n    cmd: bundle exec sidekiq -C "
                         "config/sidekiq.yml\nproxy:\n  ssl: true\n  host: staging.saltbox.io\n")]),
        User("no, we don't own saltbox.io, that's some Danish storage company. We're saltboxmeals.com. Staging is "
             "staging.saltboxmeals.com, production is app.saltboxmeals.com (you got that one right)."),
        Assistant("Fixed: the staging proxy host is staging.saltboxmeals.com, production stays "
                  "app.saltboxmeals.com. Running bin/kamal setup for production now.",
                  [Edit("config/deploy.staging.yml", "  host: staging.saltbox.io\n",
                        "  host: staging.saltboxmeals.com\n"),
                   Bash("bin/kamal setup",
                        "INFO [a1c3e2f0] Running docker login ghcr.io -u [REDACTED] -p [REDACTED] on "
                        "168.119.43.17\n  ERROR (SSHKit::Command::Failed): Exception while executing on host "
                        "168.119.43.17: docker exit status: 1\ndocker stdout: Nothing written\ndocker stderr: "
                        "Error response from daemon: Get \"https://ghcr.io/v2/\": denied: denied", ok=False)]),
        Assistant("The registry login was refused. KAMAL_REGISTRY_PASSWORD in your shell is a GitHub token, but "
                  "ghcr.io needs a token with the write:packages scope to push (and read:packages to pull on the "
                  "servers). Can you create one with write:packages and export it as KAMAL_REGISTRY_PASSWORD? "
                  ".kamal/secrets reads it from the environment."),
        User("new token with write:packages is exported. go"),
        Assistant("The push worked this time, but the deploy stopped at the health check.",
                  [Bash("bin/kamal setup",
                        "INFO [5d0f8a11] Finished all in 96.4 seconds\n...\nINFO [c81a2b3e] Running docker exec "
                        "kamal-proxy kamal-proxy deploy saltbox-web --target \"9e1f2a7c4b10:3000\" --host "
                        "\"app.saltboxmeals.com\" --health-check-path \"/up\" on 168.119.43.17\n"
                        "  ERROR (SSHKit::Command::Failed): Exception while executing on host 168.119.43.17: "
                        "docker exit status: 1\ndocker stderr: Error: target failed to become healthy within "
                        "configured timeout (30s)", ok=False),
                   Bash("bin/kamal app logs -r web --lines 5",
                        "Started GET \"/up\" for 172.18.0.2 at 2024-07-24 14:31:07 +0200\n"
                        "Redirected to https://9e1f2a7c4b10:3000/up\nCompleted 301 Moved Permanently in 0ms")]),
        Assistant("kamal-proxy checks /up over plain HTTP inside the Docker network, and production.rb has "
                  "config.force_ssl = true, so Rails answered the health check with a 301 to https and the proxy "
                  "never saw a 200. I excluded /up from the SSL redirect with config.ssl_options and turned on "
                  "config.assume_ssl, since the load balancer terminates TLS and forwards plain HTTP. The deploy "
                  "went through on both hosts and https://app.saltboxmeals.com/up returns 200.",
                  [Edit("config/environments/production.rb", "  config.force_ssl = true\n",
                        "  config.assume_ssl = true\n  config.force_ssl = true\n"
                        "  config.ssl_options = { redirect: { exclude: ->(request) { request.path == \"/up\" } } }\n"),
                   Bash("bin/kamal deploy",
                        "INFO [0b7d91c2] Running docker exec kamal-proxy kamal-proxy deploy saltbox-web ... on "
                        "168.119.43.17\nINFO [0b7d91c2] Finished in 12.4 seconds with exit status 0 (successful).\n"
                        "Finished all in 148.7 seconds"),
                   Bash("curl -s -o /dev/null -w '%{http_code}\\n' https://app.saltboxmeals.com/up", "200")]),
        User("The Sidekiq container on app-2 keeps restarting."),
        Assistant("It's crashing inside Ruby, not in our code: \"[BUG] Segmentation fault\", a segfault in "
                  "YJIT-compiled code on ruby 3.3.0, every few minutes under load from the cron jobs. This is one "
                  "of the YJIT crashes fixed in the 3.3 patch releases. Two options: upgrade Ruby to "
                  "3.3.5, or run with YJIT disabled until we upgrade.",
                  [Bash("bin/kamal app logs -r job --lines 12",
                        "[BUG] Segmentation fault at 0x0000000000000018\nruby 3.3.0 (2023-12-25 revision "
                        "5124f9ac75) +YJIT [x86_64-linux]\n\n-- Control frame information ----------------\n"
                        "c:0031 p:---- s:0178 e:000177 CFUNC  :yjit_exit\n...\n"
                        "2024-07-24T12:58:02Z pid=1 INFO: Booting Sidekiq 7.2.4")]),
        User("Bump Ruby, don't turn off YJIT. And from now on staging goes first, every time. Never deploy "
             "straight to prod."),
        Assistant("Ruby is now 3.3.5 in .ruby-version, the Gemfile's ruby line and the Dockerfile's RUBY_VERSION "
                  "build arg, with Gemfile.lock updated. Deployed to staging first, watched the job container for "
                  "40 minutes without a restart, then deployed production. Staging first is the rule from now on. "
                  "For reference: `bin/kamal deploy -d staging` for staging, `bin/kamal deploy` for production, "
                  "`bin/kamal rollback <version>` to go back, and `bin/kamal console` (an alias in deploy.yml) "
                  "opens a Rails console in production.",
                  [Edit(".ruby-version", "3.3.0\n", "3.3.5\n"),
                   Edit("Gemfile", "ruby \"3.3.0\"\n", "ruby \"3.3.5\"\n"),
                   Edit("Dockerfile", "ARG RUBY_VERSION=3.3.0\n", "ARG RUBY_VERSION=3.3.5\n"),
                   Bash("bundle install && bundle exec rspec",
                        "Bundle complete! 33 Gemfile dependencies, 116 gems now installed.\n"
                        "Finished in 1 minute 55.0 seconds (files took 1.9 seconds to load)\n"
                        "448 examples, 0 failures, 3 pending"),
                   Bash("bin/kamal deploy -d staging", "Finished all in 131.2 seconds"),
                   Bash("bin/kamal app details -r job -d staging",
                        "App Host: 168.119.43.58\nCONTAINER ID   IMAGE   STATUS\n"
                        "4f2a9c0d1e3b   ghcr.io/saltbox-dev/saltbox:3b1e6d2   Up 41 minutes"),
                   Bash("bin/kamal deploy", "Finished all in 142.9 seconds")]),
    ]),
    ("sb5-queues-retries", 27, [
        User("Monday morning the important stuff was stuck behind mailers again. Invoice webhooks took 40 minutes "
             "to get processed. Look at Sidekiq."),
        Assistant("Everything shares the default queue: at 07:00 on Monday WeeklyReminderJob enqueues about 3,400 "
                  "'your box is coming' emails, and with concurrency: 5 the Stripe events that arrive after that "
                  "wait behind all of them. The mailers queue only holds ActionMailer deliveries, but the reminder "
                  "job renders in the default queue before delivering. I'd give Stripe events a queue of their "
                  "own, listed first, and raise concurrency to 12; app-2 has the headroom.",
                  [Bash("bin/kamal app exec -r job 'bin/rails runner \"p Sidekiq::Stats.new.queues\"'",
                        "App Host: 168.119.43.58\n{\"default\"=>3412, \"mailers\"=>1290}"),
                   Bash("bin/kamal app exec -r job 'bin/rails runner \"p Sidekiq::Queue.new(\\\"default\\\")"
                        ".map(&:display_class).tally\"'",
                        "{\"WeeklyReminderJob::Deliver\"=>3381, \"StripeEventJob\"=>31}")]),
        User("Do it. Stripe events on their own queue, strictly first."),
        Assistant("config/sidekiq.yml now has concurrency: 12 and the queues critical, default, mailers without "
                  "weights, which Sidekiq treats as strict order: it only takes work from default when critical is "
                  "empty. StripeEventJob is queue_as :critical. Deploying to staging first.",
                  [Edit("config/sidekiq.yml", ":concurrency: 5\n:queues:\n  - default\n  - mailers\n",
                        ":concurrency: 12\n:queues:\n  - critical\n  - default\n  - mailers\n"),
                   Edit("app/jobs/stripe_event_job.rb", "  queue_as :default\n", "  queue_as :critical\n"),
                   Bash("bin/kamal deploy -d staging", "Finished all in 128.5 seconds"),
                   Bash("bin/kamal app logs -r job -d staging --lines 4",
                        "ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool within "
                        "5.000 seconds (waited 5.001 seconds); all pooled connections were in use\n"
                        "  /usr/local/bundle/ruby/3.3.0/gems/activerecord-7.1.3.4/lib/active_record/"
                        "connection_adapters/abstract/connection_pool/queue.rb:128:in `block in wait_poll'",
                        ok=False)]),
        Assistant("Staging shows ConnectionTimeoutError: database.yml sizes the pool from RAILS_MAX_THREADS, which "
                  "is 5, so 12 Sidekiq threads fight over 5 connections. I made the pool read DB_POOL first "
                  "(falling back to RAILS_MAX_THREADS) and set DB_POOL=12 for the job role only; web keeps 5. "
                  "Staging ran the reminder batch cleanly after that, then I deployed production.",
                  [Edit("config/database.yml", "  pool: <%= ENV.fetch(\"RAILS_MAX_THREADS\") { 5 } %>\n",
                        "  pool: <%= ENV.fetch(\"DB_POOL\") { ENV.fetch(\"RAILS_MAX_THREADS\") { 5 } } %>\n"),
                   Edit("config/deploy.yml", "    cmd: bundle exec sidekiq -C config/sidekiq.yml\n",
                        "    cmd: bundle exec sidekiq -C config/sidekiq.yml\n    env:\n      clear:\n"
                        "        DB_POOL: 12\n"),
                   Bash("bin/kamal deploy -d staging && bin/kamal app logs -r job -d staging --lines 200 "
                        "| grep -c ConnectionTimeoutError", "0"),
                   Bash("bin/kamal deploy", "Finished all in 139.6 seconds")]),
        User("Stripe had that API incident on Friday and a bunch of StripeEventJobs ended up dead. Why didn't "
             "the retries cover it?"),
        Assistant("Because retry: 5 is short with Sidekiq's backoff: the waits grow roughly with the fourth power "
                  "of the retry count, 15s, 16s, 31s, 96s and 271s plus jitter, so all five retries are spent "
                  "within about 7 minutes. Friday's incident lasted about 40 minutes, so every event that arrived "
                  "in the first half hour went to the dead set. With 8 retries the last attempt comes roughly 80 "
                  "minutes after the first failure, which would have covered it. Dead jobs also only show up in "
                  "the dashboard; nobody gets told.",
                  [Bash("bin/kamal app exec -r job 'bin/rails runner \"p Sidekiq::DeadSet.new.map(&:display_class)"
                        ".tally\"'", "{\"StripeEventJob\"=>37, \"PackingSlipBatchJob\"=>1}")]),
        User("8 is fine. When one dies anyway, post to #ops-alerts in Slack. And replay the dead ones."),
        Assistant("StripeEventJob now has sidekiq_options retry: 8. A Sidekiq death handler in the server config "
                  "posts to #ops-alerts through the Slack webhook in the credentials whenever a StripeEventJob "
                  "exhausts its retries, with the stripe_events id and the error. I replayed the 37 dead "
                  "StripeEventJobs from the dead set; all 37 succeeded, and since each checks processed_at first, "
                  "none of them did anything twice.",
                  [Edit("app/jobs/stripe_event_job.rb", "  sidekiq_options retry: 5\n",
                        "  sidekiq_options retry: 8\n"),
                   Edit("config/initializers/sidekiq.rb", "  config.on(:startup) do\n",
                        "  config.death_handlers << ->(job, ex) do\n"
                        "    next unless job[\"wrapped\"] == \"StripeEventJob\"\n"
                        "    SlackNotifier.post(channel: \"#ops-alerts\",\n"
                        "      text: \"StripeEventJob died after #{job['retry_count']} retries: #{ex.class}: "
                        "#{ex.message} (stripe_event #{job['args'].first['arguments'].first})\")\n  end\n\n"
                        "  config.on(:startup) do\n"),
                   Bash("bin/kamal app exec -r job 'bin/rails runner \"Sidekiq::DeadSet.new.select { |j| "
                        "j.display_class == %q(StripeEventJob) }.each(&:retry)\"'", "App Host: 168.119.43.58"),
                   Bash("bin/kamal app exec -r job 'bin/rails runner \"p StripeEvent.where(processed_at: nil)"
                        ".count\"'", "0")]),
        User("Ops moved the skip cutoff. 48 hours now."),
        Assistant("Changed config.x.saltbox.skip_cutoff to 48.hours. The hint under the skip button was a "
                  "hard-coded number in the locale file, so it now interpolates the configured value "
                  "(skip_cutoff.in_hours) instead and can't drift again. Updated the delivery specs for the new "
                  "boundary; green.",
                  [Edit("config/application.rb", "    config.x.saltbox.skip_cutoff = 72.hours\n",
                        "    config.x.saltbox.skip_cutoff = 48.hours\n"),
                   Edit("config/locales/de.yml", "      cutoff_hint: \"Bis 72 Stunden vor der Lieferung\"\n",
                        "      cutoff_hint: \"Bis %{hours} Stunden vor der Lieferung\"\n"),
                   Bash("bundle exec rspec spec/models/delivery_spec.rb spec/system/skip_week_spec.rb",
                        "Finished in 14.3 seconds (files took 2.0 seconds to load)\n12 examples, 0 failures")]),
        User("And the kitchen wants the weekly orders a day earlier, the supplier order goes out Thursday morning "
             "now. Wednesday 22:00."),
        Assistant("WeeklyOrdersJob now runs on Wednesday at 22:00 Berlin time: config/schedule.yml has cron "
                  "\"0 22 * * 3 Europe/Berlin\". sidekiq-cron reloads the schedule from the file on boot with "
                  "load_from_hash!, which also replaces the existing weekly_orders entry in Redis, so a deploy is "
                  "all it takes. Staging first, then production; the job container in production reports the new "
                  "cron and next Wednesday's run time.",
                  [Edit("config/schedule.yml", "  cron: \"0 18 * * 4 Europe/Berlin\"\n",
                        "  cron: \"0 22 * * 3 Europe/Berlin\"\n"),
                   Bash("bin/kamal deploy -d staging && bin/kamal deploy", "Finished all in 137.1 seconds"),
                   Bash("bin/kamal app exec -r job 'bin/rails runner \"j = Sidekiq::Cron::Job.find(%q(weekly_orders));"
                        " puts j.cron, j.next_time_to_run\"'",
                        "App Host: 168.119.43.58\n0 22 * * 3 Europe/Berlin\n2024-08-07 22:00:00 +0200")]),
    ]),
    ("sb6-cuprite-memory", 15, [
        User("CI is red again. System specs. Same chromedriver crap as last time."),
        Assistant("Same failure as before: the GitHub Actions runner image got Chrome 128 and the ChromeDriver "
                  "Selenium resolved is for 127, so all 41 system specs error out before the first visit.",
                  [Bash("gh run view --log-failed | grep -m2 -A2 SessionNotCreated",
                        "Selenium::WebDriver::Error::SessionNotCreatedError:\n"
                        "  session not created: This version of ChromeDriver only supports Chrome version 127\n"
                        "  Current browser version is 128.0.6613.84 with binary path /usr/bin/google-chrome",
                        ok=False)]),
        User("I'm done with selenium. Switch to cuprite. It talks to Chrome over CDP directly, so there's no "
             "driver binary to keep in sync."),
        Assistant("selenium-webdriver is gone and cuprite is in. spec/support/cuprite.rb registers a :cuprite "
                  "driver (1280x900 window, 15s process timeout, no-sandbox for CI) and system specs use "
                  "driven_by :cuprite. One spec then failed with Ferrum::TimeoutError: skip_week_spec had a "
                  "`sleep 1` before clicking, waiting for the Turbo stream in a way Selenium happened to tolerate. "
                  "I replaced the sleep with a Capybara expectation on the 'Skipped' badge, which waits properly. "
                  "All 41 system specs pass locally and in CI, in 52s instead of 2m10s.",
                  [Edit("Gemfile", "  gem \"selenium-webdriver\"\n", "  gem \"cuprite\"\n"),
                   Write("spec/support/cuprite.rb",
                         "Capybara.register_driver(:cuprite) do |app|\n"
                         "  Capybara::Cuprite::Driver.new(app, window_size: [1280, 900], process_timeout: 15,\n"
                         "                                browser_options: { \"no-sandbox\" => nil })\nend\n\n"
                         "RSpec.configure do |config|\n"
                         "  config.before(:each, type: :system) { driven_by :cuprite }\nend\n"),
                   Bash("bundle install && bundle exec rspec spec/system",
                        "Failures:\n\n  1) Skipping a week shows the skipped state\n"
                        "     Failure/Error: click_on \"Skip this week\"\n\n     Ferrum::TimeoutError:\n"
                        "       Timed out waiting for response. It's possible that this happened because something "
                        "took a very long time (for example a page load was slow).\n\n"
                        "41 examples, 1 failure", ok=False),
                   Edit("spec/system/skip_week_spec.rb",
                        "    sleep 1\n    click_on \"Skip this week\"\n",
                        "    click_on \"Skip this week\"\n    expect(page).to have_css(\".badge\", text: \"Skipped\")\n"),
                   Bash("bundle exec rspec spec/system",
                        "Finished in 52.3 seconds (files took 2.2 seconds to load)\n41 examples, 0 failures"),
                   Bash("git push && gh run watch --exit-status", "✓ main CI · 10523881342\n"
                        "✓ test in 3m41s")]),
        User("Next: app-2 was at 95% memory this morning and the OOM killer took out postgres last night."),
        Assistant("Confirmed: the kernel killed postgres at 03:12. The biggest process on app-2 is the Sidekiq "
                  "container at 2.1 GB RSS. With 12 threads and glibc malloc the heap fragments badly, and app-2 "
                  "(a CX32 with 8 GB) also carries Postgres, Redis, a web container and all of staging. Options: "
                  "bring concurrency down, switch the allocator to jemalloc (typically a big RSS drop for "
                  "threaded Ruby), or move staging off app-2.",
                  [Bash("ssh root@168.119.43.58 'dmesg -T | grep -i \"killed process\"'",
                        "[Thu Aug 15 03:12:44 2024] Out of memory: Killed process 21873 (postgres) "
                        "total-vm:2419840kB, anon-rss:1210332kB"),
                   Bash("ssh root@168.119.43.58 'docker stats --no-stream --format \"{{.Name}} {{.MemUsage}}\"'",
                        "saltbox-job-3b1e6d2 2.104GiB / 7.57GiB\nsaltbox-db 1.412GiB / 7.57GiB\n"
                        "saltbox-web-3b1e6d2 612MiB / 7.57GiB\nsaltbox-staging-job-3b1e6d2 655MiB / 7.57GiB\n"
                        "saltbox-redis 188MiB / 7.57GiB")]),
        User("Drop it to 10 and add jemalloc. Not going back to 5, the Monday queue needs the threads."),
        Assistant("Sidekiq concurrency is now 10 (config/sidekiq.yml has concurrency: 10) and DB_POOL for the job "
                  "role is 10 to match. The Dockerfile installs libjemalloc2 and preloads it with LD_PRELOAD in the "
                  "final stage. Deployed to staging first and ran the reminder batch there, then production. After "
                  "this morning's batch the production Sidekiq container sits at 790 MB instead of 2.1 GB.",
                  [Edit("config/sidekiq.yml", ":concurrency: 12\n", ":concurrency: 10\n"),
                   Edit("config/deploy.yml", "        DB_POOL: 12\n", "        DB_POOL: 10\n"),
                   Edit("Dockerfile",
                        "    apt-get install --no-install-recommends -y curl libvips postgresql-client && \\\n",
                        "    apt-get install --no-install-recommends -y curl libjemalloc2 libvips "
                        "postgresql-client && \\\n"),
                   Edit("Dockerfile", "ENV RAILS_ENV=\"production\" \\\n",
                        "ENV LD_PRELOAD=\"libjemalloc.so.2\" \\\n    MALLOC_CONF=\"dirty_decay_ms:1000,"
                        "narenas:2,background_thread:true\" \\\n    RAILS_ENV=\"production\" \\\n"),
                   Bash("bin/kamal deploy -d staging && bin/kamal deploy", "Finished all in 151.0 seconds"),
                   Bash("ssh root@168.119.43.58 'docker stats --no-stream --format \"{{.Name}} {{.MemUsage}}\" "
                        "| grep saltbox-job'", "saltbox-job-8c02f4a 789.3MiB / 7.57GiB")]),
        User("Someone's brute-forcing logins, it's all over the logs. Add rack-attack, 5 attempts per minute per "
             "IP on the login form."),
        Assistant("Added rack-attack with a logins/ip throttle: 5 login attempts per minute per IP on POST /login, "
                  "answered with a 429. It stores its counters through Rails.cache, so both web containers share "
                  "them in Redis. req.ip is the real client address because Rails trusts the private-network "
                  "proxies in front of it.",
                  [Bash("bundle add rack-attack", "Installing rack-attack 6.7.0\nBundle complete!"),
                   Write("config/initializers/rack_attack.rb",
                         "class Rack::Attack\n  throttle(\"logins/ip\", limit: 5, period: 1.minute) do |req|\n"
                         "    req.ip if req.path == \"/login\" && req.post?\n  end\nend\n"),
                   Edit("config/application.rb", "    config.x.saltbox.skip_cutoff = 48.hours\n",
                        "    config.x.saltbox.skip_cutoff = 48.hours\n    config.middleware.use Rack::Attack\n")]),
        User("no, the form posts to /session. /login is just the GET page that renders it."),
        Assistant("Right, routes.rb has `get \"/login\", to: \"sessions#new\"` and `resource :session, only: "
                  "[:create, :destroy]`, so the throttle now matches POST /session. The request spec sends six "
                  "POSTs to /session from one IP and expects the sixth to get a 429; the whole suite is green.",
                  [Edit("config/initializers/rack_attack.rb",
                        "    req.ip if req.path == \"/login\" && req.post?\n",
                        "    req.ip if req.path == \"/session\" && req.post?\n"),
                   Bash("bundle exec rspec",
                        "Finished in 1 minute 1.8 seconds (files took 2.1 seconds to load)\n"
                        "489 examples, 0 failures, 3 pending")]),
    ]),
    ("sb7-duplicate-orders", 3, [
        User("Support has 14 customers who got two boxes for this week's delivery. And were charged twice. Find "
             "out why."),
        Assistant("Checking the orders table for duplicates and the job logs from the Wednesday run.",
                  [Bash("bin/kamal accessory exec db \"psql -U saltbox saltbox_production -c \\\"SELECT "
                        "subscription_id, delivery_date, count(*) FROM orders GROUP BY 1, 2 HAVING count(*) > 1\\\"\"",
                        " subscription_id | delivery_date | count\n-----------------+---------------+-------\n"
                        "             812 | 2024-08-29    |     2\n            1044 | 2024-08-29    |     2\n"
                        "(14 rows)"),
                   Bash("bin/kamal app logs -r job --since 2024-08-28T21:55:00 --until 2024-08-28T22:10:00 "
                        "| grep -E 'Shutting down|Pushed|CreateOrderJob' | head -n 6",
                        "2024-08-28T20:04:31Z pid=1 INFO: Shutting down\n"
                        "2024-08-28T20:04:56Z pid=1 INFO: Pausing to allow jobs to finish...\n"
                        "2024-08-28T20:04:56Z pid=1 WARN: Pushed 14 jobs back to Redis\n"
                        "2024-08-28T20:05:19Z pid=1 INFO: Booting Sidekiq 7.2.4\n"
                        "2024-08-28T20:05:21Z class=CreateOrderJob jid=6b1f0e INFO: start")]),
        Assistant("It was a deploy. Someone deployed the allergen fix at 22:04 on Wednesday, four minutes into the "
                  "weekly order run. WeeklyOrdersJob fans out one CreateOrderJob per active subscription (about "
                  "1,900). Kamal stopped the old job container, Sidekiq waited its 25 second shutdown timeout and "
                  "pushed the 14 CreateOrderJobs that were still running back to Redis. Those 14 had already "
                  "inserted the order and created the Stripe invoice item, then the new container ran them again "
                  "from the start. Sidekiq only guarantees at-least-once execution, and CreateOrderJob isn't "
                  "idempotent, so a restart at the wrong moment duplicates whatever was in flight."),
        User("So a deploy did it. Fix it so it can't happen again, whatever restarts the worker."),
        Assistant("Two parts: a unique index on orders (subscription_id, delivery_date), and CreateOrderJob using "
                  "Order.create_or_find_by! so a re-run picks up the existing order, plus an idempotency key of "
                  "\"order-<id>-invoice-item\" on the Stripe call so Stripe returns the original invoice item "
                  "instead of creating another. Running the migration against the dev database (Monday's "
                  "anonymised copy of production):",
                  [Write("db/migrate/20240829101200_add_unique_index_to_orders.rb",
                         "class AddUniqueIndexToOrders < ActiveRecord::Migration[7.1]\n"
                         "  disable_ddl_transaction!\n\n  def change\n"
                         "    add_index :orders, [:subscription_id, :delivery_date], unique: true,\n"
                         "              algorithm: :concurrently\n  end\nend\n"),
                   Edit("app/jobs/create_order_job.rb",
                        "    order = Order.create!(subscription: subscription, delivery_date: delivery_date)\n"
                        "    Stripe::InvoiceItem.create(customer: subscription.stripe_customer_id, "
                        "price: subscription.plan.stripe_price_id)\n",
                        "    order = Order.create_or_find_by!(subscription: subscription, delivery_date: "
                        "delivery_date)\n"
                        "    Stripe::InvoiceItem.create(\n"
                        "      { customer: subscription.stripe_customer_id, price: subscription.plan.stripe_price_id },\n"
                        "      { idempotency_key: \"order-#{order.id}-invoice-item\" })\n"),
                   Bash("bin/rails db:migrate",
                        "== 20240829101200 AddUniqueIndexToOrders: migrating ===========================\n"
                        "-- add_index(:orders, [:subscription_id, :delivery_date], {:unique=>true, "
                        ":algorithm=>:concurrently})\nbin/rails aborted!\nStandardError: An error has occurred, "
                        "all later migrations canceled:\n\nPG::UniqueViolation: ERROR:  could not create unique "
                        "index \"index_orders_on_subscription_id_and_delivery_date\"\nDETAIL:  Key "
                        "(subscription_id, delivery_date)=(812, 2024-08-29) is duplicated.", ok=False)]),
        Assistant("The index can't be built while the 14 duplicates exist. I'll add a step at the start of the "
                  "migration that deletes the extra rows, keeping the oldest order for each subscription and "
                  "delivery date.",
                  [Edit("db/migrate/20240829101200_add_unique_index_to_orders.rb", "  def change\n",
                        "  def up\n    execute <<~SQL\n      DELETE FROM orders WHERE id IN (SELECT id FROM "
                        "(SELECT id, row_number() OVER (PARTITION BY subscription_id, delivery_date ORDER BY id) "
                        "AS n FROM orders) d WHERE d.n > 1)\n    SQL\n")]),
        User("no, don't delete orders in a migration. Finance needs those rows to match the refunds. Mark the "
             "duplicates cancelled and leave cancelled orders out of the index."),
        Assistant("Changed: the migration sets status = 'cancelled' and cancelled_reason = 'duplicate' on every "
                  "order after the first per subscription and delivery date, and the unique index is partial, "
                  "WHERE status <> 'cancelled', so the cancelled duplicates stay in the table and a customer can "
                  "still get a new order for a week after cancelling one. The migration runs cleanly on the dev "
                  "copy, 14 rows marked. New job specs: running CreateOrderJob twice with the same arguments "
                  "leaves one order and sends the same idempotency key both times.",
                  [Write("db/migrate/20240829101200_add_unique_index_to_orders.rb",
                         "class AddUniqueIndexToOrders < ActiveRecord::Migration[7.1]\n"
                         "  disable_ddl_transaction!\n\n  def up\n    execute <<~SQL\n"
                         "      UPDATE orders SET status = 'cancelled', cancelled_reason = 'duplicate'\n"
                         "      WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY "
                         "subscription_id, delivery_date ORDER BY id) AS n\n"
                         "                   FROM orders WHERE status <> 'cancelled') d WHERE d.n > 1)\n"
                         "    SQL\n    add_index :orders, [:subscription_id, :delivery_date], unique: true,\n"
                         "              where: \"status <> 'cancelled'\", algorithm: :concurrently,\n"
                         "              name: \"index_orders_on_subscription_and_delivery_date_active\"\n  end\n\n"
                         "  def down\n    remove_index :orders, name: "
                         "\"index_orders_on_subscription_and_delivery_date_active\"\n  end\nend\n"),
                   Bash("bin/rails db:migrate",
                        "== 20240829101200 AddUniqueIndexToOrders: migrating ===========================\n"
                        "-- execute(\"UPDATE orders SET status = 'cancelled' ...\")\n   -> 0.0412s\n"
                        "-- add_index(:orders, [:subscription_id, :delivery_date], ...)\n   -> 0.2180s\n"
                        "== 20240829101200 AddUniqueIndexToOrders: migrated (0.2601s) ================="),
                   Bash("bundle exec rspec spec/jobs/create_order_job_spec.rb",
                        "Finished in 0.8 seconds (files took 2.0 seconds to load)\n6 examples, 0 failures")]),
        User("The kitchen staff all share one office IP and got locked out by rack-attack this morning. Make it "
             "10 a minute. And write down in the README: no deploys on Wednesday evenings anymore."),
        Assistant("The login throttle is now limit: 10 per 1.minute, so 10 login attempts per minute per IP. The "
                  "README's Deploying section now says: no deploys on Wednesdays between 21:00 and 23:30 Berlin "
                  "time, because the weekly order run starts at 22:00, and staging first as always.",
                  [Edit("config/initializers/rack_attack.rb",
                        "  throttle(\"logins/ip\", limit: 5, period: 1.minute) do |req|\n",
                        "  throttle(\"logins/ip\", limit: 10, period: 1.minute) do |req|\n"),
                   Edit("README.md", "## Deploying\n\n",
                        "## Deploying\n\nAlways deploy staging first: `bin/kamal deploy -d staging`, then "
                        "`bin/kamal deploy`.\n\nNo deploys on Wednesdays between 21:00 and 23:30 (Europe/Berlin): "
                        "the weekly order run starts at 22:00 and a worker restart mid-run re-runs jobs.\n\n")]),
        User("Don't refund from code. Give me a list, I'll do the refunds with finance tomorrow."),
        Assistant("No refunds from code. The list is in tmp/duplicate_orders_2024-08-29.csv: 14 rows with customer "
                  "email, subscription id, both order ids and the Stripe invoice id of the duplicate charge, "
                  "which is what finance needs to refund in the dashboard.",
                  [Bash("bin/kamal app exec 'bin/rails runner script/export_duplicate_orders.rb' > "
                        "tmp/duplicate_orders_2024-08-29.csv && wc -l tmp/duplicate_orders_2024-08-29.csv",
                        "15 tmp/duplicate_orders_2024-08-29.csv")]),
        User("I'm out of time. What's left?"),
        Assistant("Where it stands: the fix (partial unique index, create_or_find_by!, Stripe idempotency key) is "
                  "merged locally and green, but the unique index is not deployed anywhere yet. Next time: deploy "
                  "it to staging, then production, outside the Wednesday window; you and finance refund the 14 "
                  "duplicate charges from the CSV; and the nightly pg_dump backups of the db accessory to the "
                  "Hetzner Storage Box are still not set up, which this incident made more urgent. The Rails 7.2 "
                  "upgrade stays at the bottom of the list.",
                  [Todo([("Find the cause of the duplicate orders", "completed"),
                         ("Partial unique index on orders + idempotent CreateOrderJob", "completed"),
                         ("Raise login throttle to 10 per minute", "completed"),
                         ("Document the Wednesday deploy freeze in the README", "completed"),
                         ("Deploy the orders unique index (staging first, then production)", "pending"),
                         ("Refund the 14 duplicate charges with finance (tmp/duplicate_orders_2024-08-29.csv)",
                          "pending"),
                         ("Nightly pg_dump backups of the db accessory to the Hetzner Storage Box", "pending"),
                         ("Upgrade to Rails 7.2", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("What port does the app run on when I start it locally?", ["3100"], ["localhost:3000", "-p 3000"]),
    ("Why isn't the dev server on the default Rails port any more?", ["marketing site", "Next.js"], []),
    ("What's the command to forward Stripe test events to my machine?",
     ["stripe listen --forward-to localhost:3100/webhooks/stripe"], ["localhost:3000/webhooks/stripe"]),
    ("Locally forwarded Stripe events were all rejected with a 400. What was wrong?",
     ["signed with the CLI's own secret", ".env.development.local"], []),
    ("Which library renders the packing slip PDFs?", ["Prawn", "prawn"], ["wicked_pdf"]),
    ("Why did we get rid of wicked_pdf?", ["archived upstream", "arm64"], []),
    ("How much smaller did the docker image get after dropping wkhtmltopdf?", ["874MB"], []),
    ("How long does the cached recipe grid on the menu page live?", ["10 minutes", "10.minutes"],
     ["1.hour", "1 hour"]),
    ("Why were menu edits taking so long to appear on the site?", ["only contained the week", "1.hour expiry"],
     []),
    ("Which Ruby version are we on now?", ["3.3.5"], ["3.3.0"]),
    ("Why did we have to upgrade Ruby?", ["Segmentation fault", "segfault", "YJIT"], []),
    ("Did we consider just switching YJIT off?", ["don't turn off YJIT"], []),
    ("What's the staging URL?", ["staging.saltboxmeals.com"], ["staging.saltbox.io"]),
    ("What's the production domain?", ["app.saltboxmeals.com"], []),
    ("When does the weekly order generation run?", ["Wednesday at 22:00", "0 22 * * 3", "Wednesday 22:00"],
     ["0 18 * * 4", "Thursday at 18:00"]),
    ("Why was the weekly order job moved earlier in the week?", ["supplier order"], []),
    ("How close to delivery can a customer still skip a week?", ["48 hours", "48.hours"],
     ["72 hours", "72.hours"]),
    ("Where is the skip deadline configured?", ["config.x.saltbox.skip_cutoff"], []),
    ("How many threads does Sidekiq run in production?", ["concurrency: 10", "concurrency is now 10"],
     ["concurrency: 12", "concurrency: 5"]),
    ("Why did we lower Sidekiq's thread count again?", ["OOM killer", "95% memory"], []),
    ("How big is the database pool for the worker containers?", ["DB_POOL for the job role is 10"],
     ["DB_POOL=12", "DB_POOL: 12"]),
    ("Which queue do Stripe events go on?", ["critical"], []),
    ("Why did invoice webhooks sit around for 40 minutes on a Monday?", ["WeeklyReminderJob", "3,400"], []),
    ("The worker threw connection pool timeouts after we added threads. What was the fix?",
     ["DB_POOL"], []),
    ("How many times does a Stripe event job retry before it gives up?", ["retry: 8", "8 retries"],
     ["retry: 5"]),
    ("Why did we raise the retries on the Stripe job?", ["about 7 minutes", "API incident"], []),
    ("Where do I get told when a Stripe event job dies?", ["#ops-alerts"], []),
    ("What do we use for browser-driven system tests now?", ["cuprite"], ["selenium-webdriver"]),
    ("Why did we drop selenium?", ["driver binary", "ChromeDriver"], []),
    ("What did we do about Ruby memory bloat on the worker box?", ["jemalloc"], []),
    ("How many login attempts does rack-attack allow?", ["10 login attempts per minute", "limit: 10"],
     ["limit: 5", "5 login attempts per minute", "5 attempts per minute"]),
    ("Why did we loosen the login throttle?", ["share one office IP", "locked out"], []),
    ("Which endpoint does the login throttle watch?", ["/session"], []),
    ("How do I run the test suite?", ["bundle exec rspec"], []),
    ("How do I bring up the whole dev stack, web and worker?", ["bin/dev"], []),
    ("How do I deploy to staging?", ["bin/kamal deploy -d staging"], []),
    ("How do I get a Rails console on production?", ["bin/kamal console"], []),
    ("What's my rule about deploying to production?", ["staging first", "Never deploy straight to prod"], []),
    ("Are we allowed to deploy on Wednesday nights?", ["no deploys on Wednesday", "between 21:00 and 23:30"], []),
    ("What did I say about how to set up test data in specs?", ["build_stubbed", "no let!"], []),
    ("Can the app cancel a customer's Stripe subscription automatically?",
     ["never cancel a subscription in Stripe from code", "Pausing only"], []),
    ("What happens after a customer's payment fails three times?", ["pause_collection", "behavior void"], []),
    ("Why does the webhook controller only store the event and enqueue a job?",
     ["only waits a few seconds", "return 200"], []),
    ("How do we avoid processing the same Stripe event twice?", ["unique index on stripe_id", "ON CONFLICT"], []),
    ("Where does the production Stripe API key live?", ["credentials.stripe[:secret_key]",
                                                        "bin/rails credentials:edit --environment production"], []),
    ("The first db:prepare failed on a missing role. How was it fixed?", ["POSTGRES_USER=saltbox"], []),
    ("Why did the first Kamal deploy fail its health check?", ["force_ssl", "301"], []),
    ("The registry login failed during kamal setup. What was needed?", ["write:packages"], []),
    ("Which server runs the background workers and the database?", ["168.119.43.58", "app-2"], []),
    ("Who can open the Sidekiq dashboard?", ["admin: true", "AdminConstraint"], []),
    ("Why did customers get two boxes this week?", ["It was a deploy", "at-least-once"], []),
    ("Why didn't we just delete the duplicate orders?", ["Finance needs those rows"], []),
    ("How does the order job avoid double charging if it runs twice?", ["idempotency key", "create_or_find_by!"],
     []),
    ("Has the fix for duplicate orders gone out to production?", ["not deployed anywhere yet"], []),
    ("Where's the list of customers to refund?", ["tmp/duplicate_orders_2024-08-29.csv"], []),
    ("What's still on the list for next time?", ["pg_dump", "Storage Box", "refund the 14"], []),
    ("Which Postgres version do we run?", ["postgres:16", "Postgres 16"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("48 hours", "48.hours"), ("0 22 * * 3", "Wednesday at 22:00"),
              ("concurrency: 10", "concurrency is now 10"), ("Prawn", "prawn"),
              ("pg_dump", "Storage Box", "not deployed anywhere yet")],
    "stale": ["72 hours", "72.hours", "0 18 * * 4", "concurrency: 12", "concurrency: 5", "wicked_pdf",
              "staging.saltbox.io", "retry: 5", "3.3.0", "-p 3000"],
}
