ALTER TABLE "forum_members" ADD COLUMN "mail_reply" text DEFAULT 'immediately' NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "mail_mention" text DEFAULT 'immediately' NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "mail_like" text DEFAULT 'digest' NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "digest" text DEFAULT 'weekly' NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "last_digest_at" timestamp with time zone;--> statement-breakpoint
-- Members who had turned reply mail off get no notification mail at all; everyone's first digest
-- covers what happens from now on, not their whole membership.
UPDATE "forum_members" SET "mail_reply" = 'never', "mail_mention" = 'never', "mail_like" = 'never', "digest" = 'never' WHERE "notify_replies" = false;--> statement-breakpoint
UPDATE "forum_members" SET "last_digest_at" = date_trunc('hour', now());
