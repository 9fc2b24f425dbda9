CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"site_id" text,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 1 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"cancel_requested_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("kind","state","run_at");--> statement-breakpoint
CREATE INDEX "jobs_lease_idx" ON "jobs" USING btree ("state","lease_expires_at");--> statement-breakpoint
-- hand-written
-- Builds still waiting or running move onto the job queue under their own ids; a running one keeps
-- its worker and lease, so a dead worker's build is failed by the usual sweep.
INSERT INTO "jobs" ("id", "kind", "payload", "site_id", "state", "attempts", "max_attempts", "run_at", "lease_owner", "lease_expires_at", "cancel_requested_at", "created_at")
SELECT "id", 'deploy.build', '{}'::jsonb, "site_id", "state", "attempts", 1, "created_at", "lease_owner", "lease_expires_at", "cancel_requested_at", "created_at"
FROM "deploy_builds" WHERE "state" IN ('queued', 'running');--> statement-breakpoint
-- Unsent forum mail keeps its attempts, next attempt and last error; mail that used up its six
-- attempts stays failed for the operator.
INSERT INTO "jobs" ("id", "kind", "payload", "site_id", "state", "attempts", "max_attempts", "run_at", "last_error", "created_at")
SELECT "id", 'forum.mail', jsonb_build_object('kind', "kind", 'message', "message"), "site_id",
  CASE WHEN "attempts" >= 6 THEN 'failed' ELSE 'queued' END, "attempts", 6, "next_attempt_at", "last_error", "created_at"
FROM "forum_mail_outbox";
