CREATE TABLE "forum_held_posts" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"author_id" text NOT NULL,
	"forum_id" text,
	"title" text,
	"topic_id" text,
	"parent_id" text,
	"body_source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forum_mod_actions" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"action" text NOT NULL,
	"actor_id" text,
	"actor_name" text NOT NULL,
	"target_member_id" text,
	"target_name" text,
	"post_id" text,
	"flag_id" text,
	"reason" text,
	"until" timestamp with time zone,
	"acknowledged_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "trust_level" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "suspended_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "suspension_reason" text;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "avatar_upload_id" text;--> statement-breakpoint
ALTER TABLE "forum_held_posts" ADD CONSTRAINT "forum_held_posts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_held_posts" ADD CONSTRAINT "forum_held_posts_author_id_forum_members_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_held_posts" ADD CONSTRAINT "forum_held_posts_forum_id_forums_id_fk" FOREIGN KEY ("forum_id") REFERENCES "public"."forums"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_held_posts" ADD CONSTRAINT "forum_held_posts_topic_id_forum_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."forum_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_mod_actions" ADD CONSTRAINT "forum_mod_actions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_mod_actions" ADD CONSTRAINT "forum_mod_actions_actor_id_forum_members_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forum_held_posts_site_idx" ON "forum_held_posts" USING btree ("site_id","created_at");--> statement-breakpoint
CREATE INDEX "forum_held_posts_author_idx" ON "forum_held_posts" USING btree ("author_id");--> statement-breakpoint
CREATE INDEX "forum_mod_actions_site_idx" ON "forum_mod_actions" USING btree ("site_id","created_at");--> statement-breakpoint
CREATE INDEX "forum_mod_actions_target_idx" ON "forum_mod_actions" USING btree ("target_member_id","action","created_at");