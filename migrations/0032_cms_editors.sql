CREATE TABLE "cms_editors" (
	"member_id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cms_editors" ADD CONSTRAINT "cms_editors_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_editors" ADD CONSTRAINT "cms_editors_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cms_editors_site_idx" ON "cms_editors" USING btree ("site_id");