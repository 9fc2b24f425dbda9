DROP INDEX "forum_topics_forum_idx";--> statement-breakpoint
ALTER TABLE "forum_topics" ADD COLUMN "thread_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forums" ADD COLUMN "topic_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forums" ADD COLUMN "hidden_topic_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Counters of the data already there, before the new indexes exist (docs/decisions/0018-forum-counters.md).
UPDATE "forums" SET "topic_count" = c."topics", "hidden_topic_count" = c."hidden"
FROM (SELECT "forum_id", count(*)::integer AS "topics", (count(*) FILTER (WHERE "hidden"))::integer AS "hidden" FROM "forum_topics" GROUP BY "forum_id") c
WHERE c."forum_id" = "forums"."id";--> statement-breakpoint
UPDATE "forum_topics" SET "thread_count" = c."threads"
FROM (SELECT "topic_id", count(*)::integer AS "threads" FROM "forum_posts" WHERE "parent_id" IS NULL GROUP BY "topic_id") c
WHERE c."topic_id" = "forum_topics"."id";--> statement-breakpoint
CREATE INDEX "forum_posts_threads_idx" ON "forum_posts" USING btree ("topic_id","created_at","id") WHERE "forum_posts"."parent_id" is null;--> statement-breakpoint
CREATE INDEX "forum_topics_forum_idx" ON "forum_topics" USING btree ("forum_id","pinned","last_post_at","id","hidden");