ALTER TABLE "deploy_builds" ADD COLUMN "cancel_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deploy_builds" ADD COLUMN "cancel_requested_by" text;