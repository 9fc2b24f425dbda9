CREATE TABLE "forum_post_likes" (
	"post_id" text NOT NULL,
	"member_id" text NOT NULL,
	"site_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forum_post_likes_post_id_member_id_pk" PRIMARY KEY("post_id","member_id")
);
--> statement-breakpoint
ALTER TABLE "forum_posts" ADD COLUMN "like_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_post_id_forum_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."forum_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_post_likes" ADD CONSTRAINT "forum_post_likes_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
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
