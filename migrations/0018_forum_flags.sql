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
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_post_id_forum_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."forum_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_reporter_id_forum_members_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_flags" ADD CONSTRAINT "forum_flags_resolved_by_id_forum_members_id_fk" FOREIGN KEY ("resolved_by_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forum_flags_queue_idx" ON "forum_flags" USING btree ("site_id","state","created_at");--> statement-breakpoint
CREATE INDEX "forum_flags_post_idx" ON "forum_flags" USING btree ("post_id");--> statement-breakpoint
CREATE UNIQUE INDEX "forum_flags_open_key" ON "forum_flags" USING btree ("post_id","reporter_id") WHERE "forum_flags"."state" = 'open';