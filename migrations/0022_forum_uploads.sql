CREATE TABLE "forum_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"member_id" text,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"kind" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"width" integer,
	"height" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forum_uploads" ADD CONSTRAINT "forum_uploads_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_uploads" ADD CONSTRAINT "forum_uploads_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forum_uploads_member_idx" ON "forum_uploads" USING btree ("site_id","member_id","created_at");