DROP INDEX "forum_topics_site_idx";--> statement-breakpoint
CREATE INDEX "forum_topics_author_idx" ON "forum_topics" USING btree ("author_id","pinned","last_post_at","id");--> statement-breakpoint
CREATE INDEX "forum_topics_site_idx" ON "forum_topics" USING btree ("site_id","pinned","last_post_at","id");