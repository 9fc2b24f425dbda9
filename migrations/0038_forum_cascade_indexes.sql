CREATE INDEX "forum_held_posts_topic_idx" ON "forum_held_posts" USING btree ("topic_id");--> statement-breakpoint
CREATE INDEX "forum_notifications_topic_idx" ON "forum_notifications" USING btree ("topic_id");--> statement-breakpoint
CREATE INDEX "forum_notifications_post_idx" ON "forum_notifications" USING btree ("post_id");--> statement-breakpoint
CREATE INDEX "forum_topic_reads_topic_idx" ON "forum_topic_reads" USING btree ("topic_id");