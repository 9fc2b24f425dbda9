DROP TABLE "forum_mail_outbox" CASCADE;--> statement-breakpoint
ALTER TABLE "deploy_builds" DROP COLUMN "lease_expires_at";