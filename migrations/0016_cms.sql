CREATE TABLE "cms_content_types" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"builtin" text,
	"fields" jsonb NOT NULL,
	"removed_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cms_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"type_id" text NOT NULL,
	"slug" text,
	"status" text NOT NULL,
	"data" jsonb NOT NULL,
	"html" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cms_webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cms_webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cms_content_types" ADD CONSTRAINT "cms_content_types_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_entries" ADD CONSTRAINT "cms_entries_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_entries" ADD CONSTRAINT "cms_entries_type_id_cms_content_types_id_fk" FOREIGN KEY ("type_id") REFERENCES "public"."cms_content_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_webhook_deliveries" ADD CONSTRAINT "cms_webhook_deliveries_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_webhook_deliveries" ADD CONSTRAINT "cms_webhook_deliveries_webhook_id_cms_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."cms_webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_webhooks" ADD CONSTRAINT "cms_webhooks_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cms_content_types_slug_key" ON "cms_content_types" USING btree ("site_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "cms_entries_slug_key" ON "cms_entries" USING btree ("type_id","slug");--> statement-breakpoint
CREATE INDEX "cms_entries_published_idx" ON "cms_entries" USING btree ("type_id","status","published_at","id");--> statement-breakpoint
CREATE INDEX "cms_entries_created_idx" ON "cms_entries" USING btree ("type_id","created_at","id");--> statement-breakpoint
CREATE INDEX "cms_entries_updated_idx" ON "cms_entries" USING btree ("type_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "cms_entries_search_idx" ON "cms_entries" USING gin (to_tsvector('english', "search_text"));--> statement-breakpoint
CREATE INDEX "cms_webhook_deliveries_hook_idx" ON "cms_webhook_deliveries" USING btree ("webhook_id","created_at");--> statement-breakpoint
CREATE INDEX "cms_webhooks_site_idx" ON "cms_webhooks" USING btree ("site_id");