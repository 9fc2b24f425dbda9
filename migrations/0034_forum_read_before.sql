ALTER TABLE "forum_members" ADD COLUMN "read_before" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Members from before the watermark keep every unread topic since they joined.
UPDATE "forum_members" SET "read_before" = "created_at";
