CREATE TABLE "forum_drafts" (
	"member_id" text NOT NULL,
	"key" text NOT NULL,
	"site_id" text NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forum_drafts_member_id_key_pk" PRIMARY KEY("member_id","key")
);
--> statement-breakpoint
ALTER TABLE "forum_drafts" ADD CONSTRAINT "forum_drafts_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forum_drafts" ADD CONSTRAINT "forum_drafts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;