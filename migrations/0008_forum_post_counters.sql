ALTER TABLE "forums" ADD COLUMN "post_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forums" ADD COLUMN "hidden_post_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Live posts of the data already there (docs/decisions/0018-forum-counters.md).
UPDATE "forums" SET "post_count" = c."posts", "hidden_post_count" = c."hidden"
FROM (SELECT "forum_id", sum("post_count")::integer AS "posts", (coalesce(sum("post_count") FILTER (WHERE "hidden"), 0))::integer AS "hidden" FROM "forum_topics" GROUP BY "forum_id") c
WHERE c."forum_id" = "forums"."id";
