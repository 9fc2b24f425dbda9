ALTER TABLE "deploy_releases" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "deploy_releases" ADD COLUMN "build_ms" integer;--> statement-breakpoint
ALTER TABLE "deploy_builds" ADD COLUMN "requested_by" text;