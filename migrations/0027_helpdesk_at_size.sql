CREATE TABLE "helpdesk_report_days" (
	"site_id" text NOT NULL,
	"day" date NOT NULL,
	"events" integer NOT NULL,
	"created" integer NOT NULL,
	"solved" integer NOT NULL,
	"reopened" integer NOT NULL,
	"agent_replies" integer NOT NULL,
	"requester_replies" integer NOT NULL,
	CONSTRAINT "helpdesk_report_days_site_id_day_pk" PRIMARY KEY("site_id","day")
);
--> statement-breakpoint
DROP INDEX "helpdesk_tickets_site_status_idx";--> statement-breakpoint
ALTER TABLE "helpdesk_report_days" ADD CONSTRAINT "helpdesk_report_days_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_site_status_idx" ON "helpdesk_tickets" USING btree ("site_id","status","updated_at","id");