CREATE TABLE "forum_flags" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"post_id" text NOT NULL,
	"reporter_id" text,
	"reason" text NOT NULL,
	"note" text,
	"state" text DEFAULT 'open' NOT NULL,
	"resolved_by_id" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forum_notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"topic_id" text NOT NULL,
	"post_id" text NOT NULL,
	"actor_id" text,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forum_post_likes" (
	"post_id" text NOT NULL,
	"member_id" text NOT NULL,
	"site_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forum_post_likes_post_id_member_id_pk" PRIMARY KEY("post_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "forum_topic_reads" (
	"member_id" text NOT NULL,
	"topic_id" text NOT NULL,
	"site_id" text NOT NULL,
	"last_read_post_id" text NOT NULL,
	"last_read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "forum_topic_reads_member_id_topic_id_pk" PRIMARY KEY("member_id","topic_id")
);
--> statement-breakpoint
ALTER TABLE "forum_posts" ADD COLUMN "like_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_post_id_forum_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."forum_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_reporter_id_forum_members_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_resolved_by_id_forum_members_id_fk" FOREIGN KEY ("resolved_by_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_notifications" ADD CONSTRAINT "forum_notifications_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_notifications" ADD CONSTRAINT "forum_notifications_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_notifications" ADD CONSTRAINT "forum_notifications_topic_id_forum_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."forum_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_notifications" ADD CONSTRAINT "forum_notifications_post_id_forum_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."forum_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_notifications" ADD CONSTRAINT "forum_notifications_actor_id_forum_members_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_post_id_forum_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."forum_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_topic_reads" ADD CONSTRAINT "forum_topic_reads_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_topic_reads" ADD CONSTRAINT "forum_topic_reads_topic_id_forum_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."forum_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_topic_reads" ADD CONSTRAINT "forum_topic_reads_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forum_flags_queue_idx" ON "forum_flags" USING btree ("site_id","state","created_at");--> statement-breakpoint
CREATE INDEX "forum_flags_post_idx" ON "forum_flags" USING btree ("post_id");--> statement-breakpoint
CREATE UNIQUE INDEX "forum_flags_open_key" ON "forum_flags" USING btree ("post_id","reporter_id") WHERE "forum_flags"."state" = 'open';--> statement-breakpoint
CREATE INDEX "forum_notifications_member_idx" ON "forum_notifications" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "forum_notifications_unread_idx" ON "forum_notifications" USING btree ("member_id") WHERE "forum_notifications"."read_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "forum_notifications_like_key" ON "forum_notifications" USING btree ("post_id","actor_id") WHERE "forum_notifications"."kind" = 'like';--> statement-breakpoint
CREATE INDEX "forum_post_likes_member_idx" ON "forum_post_likes" USING btree ("member_id","created_at");--> statement-breakpoint
-- hand-written
-- A post's like_count follows its likes, whoever adds or removes one (a like, an unlike, a member
-- deleted with its likes).
CREATE FUNCTION "forum_post_likes_keep_count"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "forum_posts" SET "like_count" = "like_count" + 1 WHERE "id" = NEW."post_id";
  ELSE
    UPDATE "forum_posts" SET "like_count" = "like_count" - 1 WHERE "id" = OLD."post_id";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_post_likes_keep_count" AFTER INSERT OR DELETE ON "forum_post_likes"
FOR EACH ROW EXECUTE FUNCTION "forum_post_likes_keep_count"();
