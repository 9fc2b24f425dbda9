CREATE TABLE "helpdesk_saved_views" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"member_id" text NOT NULL,
	"name" text NOT NULL,
	"query" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "helpdesk_saved_views" ADD CONSTRAINT "helpdesk_saved_views_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_saved_views" ADD CONSTRAINT "helpdesk_saved_views_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "helpdesk_saved_views_name_key" ON "helpdesk_saved_views" USING btree ("member_id",lower("name"));--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_site_sla_due_idx" ON "helpdesk_tickets" USING btree ("site_id",(case when "solved_at" is null then least(case when "first_response_at" is null then "first_response_due_at" end, "resolution_due_at") end),"id");