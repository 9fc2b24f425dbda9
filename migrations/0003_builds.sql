CREATE TABLE "deploy_build_logs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deploy_build_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"build_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"stream" text NOT NULL,
	"line" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_builds" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"trigger" text NOT NULL,
	"kind" text NOT NULL,
	"git" jsonb,
	"path" text DEFAULT '' NOT NULL,
	"input_key" text,
	"promotable" boolean DEFAULT true NOT NULL,
	"release_id" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "deploy_github_connections" (
	"site_id" text PRIMARY KEY NOT NULL,
	"repository" text NOT NULL,
	"branch" text NOT NULL,
	"path" text DEFAULT '' NOT NULL,
	"kind" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_github_deliveries" (
	"delivery_id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"build_id" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_build_logs" ADD CONSTRAINT "deploy_build_logs_build_id_deploy_builds_id_fk" FOREIGN KEY ("build_id") REFERENCES "public"."deploy_builds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_builds" ADD CONSTRAINT "deploy_builds_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_builds" ADD CONSTRAINT "deploy_builds_release_id_deploy_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."deploy_releases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_github_connections" ADD CONSTRAINT "deploy_github_connections_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_github_deliveries" ADD CONSTRAINT "deploy_github_deliveries_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deploy_build_logs_build_idx" ON "deploy_build_logs" USING btree ("build_id","id");--> statement-breakpoint
CREATE INDEX "deploy_builds_site_idx" ON "deploy_builds" USING btree ("site_id","created_at");--> statement-breakpoint
CREATE INDEX "deploy_builds_state_idx" ON "deploy_builds" USING btree ("state","created_at");