DROP INDEX "helpdesk_tickets_search_idx";--> statement-breakpoint
CREATE INDEX "helpdesk_entries_search_idx" ON "helpdesk_entries" USING gin (to_tsvector('english', left("body_text", 100000)));--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_subject_search_idx" ON "helpdesk_tickets" USING gin (to_tsvector('english', "subject"));--> statement-breakpoint
ALTER TABLE "helpdesk_tickets" DROP COLUMN "search_text";