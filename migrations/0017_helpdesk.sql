CREATE TABLE "helpdesk_agent_categories" (
	"agent_id" text NOT NULL,
	"category_id" text NOT NULL,
	CONSTRAINT "helpdesk_agent_categories_agent_id_category_id_pk" PRIMARY KEY("agent_id","category_id")
);
--> statement-breakpoint
CREATE TABLE "helpdesk_agents" (
	"member_id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"capacity" integer DEFAULT 10 NOT NULL,
	"available" boolean DEFAULT true NOT NULL,
	"last_assigned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_categories" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"member_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_counters" (
	"site_id" text PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_drafts" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"ticket_id" text NOT NULL,
	"body" text NOT NULL,
	"model" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"ticket_id" text NOT NULL,
	"author_kind" text NOT NULL,
	"author_id" text,
	"internal" boolean DEFAULT false NOT NULL,
	"body_source" text NOT NULL,
	"body_html" text NOT NULL,
	"body_text" text NOT NULL,
	"message_id" text,
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "helpdesk_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" text NOT NULL,
	"ticket_id" text NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"event" text NOT NULL,
	"from_value" jsonb,
	"to_value" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "helpdesk_sla_policies" (
	"site_id" text NOT NULL,
	"priority" text NOT NULL,
	"first_response_minutes" integer NOT NULL,
	"resolution_minutes" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "helpdesk_sla_policies_site_id_priority_pk" PRIMARY KEY("site_id","priority")
);
--> statement-breakpoint
CREATE TABLE "helpdesk_tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"number" integer NOT NULL,
	"subject" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"priority" text DEFAULT 'normal' NOT NULL,
	"category_id" text,
	"assignee_id" text,
	"requester_id" text NOT NULL,
	"channel" text NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"follow_up_of" text,
	"search_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"first_response_at" timestamp with time zone,
	"solved_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"first_response_minutes" integer,
	"resolution_minutes" integer,
	"first_response_due_at" timestamp with time zone,
	"resolution_due_at" timestamp with time zone,
	"sla_paused_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "helpdesk_agent_categories" ADD CONSTRAINT "helpdesk_agent_categories_agent_id_helpdesk_agents_member_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."helpdesk_agents"("member_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_agent_categories" ADD CONSTRAINT "helpdesk_agent_categories_category_id_helpdesk_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."helpdesk_categories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_agents" ADD CONSTRAINT "helpdesk_agents_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_agents" ADD CONSTRAINT "helpdesk_agents_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_categories" ADD CONSTRAINT "helpdesk_categories_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_contacts" ADD CONSTRAINT "helpdesk_contacts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_contacts" ADD CONSTRAINT "helpdesk_contacts_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_counters" ADD CONSTRAINT "helpdesk_counters_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_drafts" ADD CONSTRAINT "helpdesk_drafts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_drafts" ADD CONSTRAINT "helpdesk_drafts_ticket_id_helpdesk_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."helpdesk_tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_entries" ADD CONSTRAINT "helpdesk_entries_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_entries" ADD CONSTRAINT "helpdesk_entries_ticket_id_helpdesk_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."helpdesk_tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_history" ADD CONSTRAINT "helpdesk_history_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_history" ADD CONSTRAINT "helpdesk_history_ticket_id_helpdesk_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."helpdesk_tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_sla_policies" ADD CONSTRAINT "helpdesk_sla_policies_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_tickets" ADD CONSTRAINT "helpdesk_tickets_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_tickets" ADD CONSTRAINT "helpdesk_tickets_category_id_helpdesk_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."helpdesk_categories"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_tickets" ADD CONSTRAINT "helpdesk_tickets_assignee_id_helpdesk_agents_member_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."helpdesk_agents"("member_id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdesk_tickets" ADD CONSTRAINT "helpdesk_tickets_requester_id_helpdesk_contacts_id_fk" FOREIGN KEY ("requester_id") REFERENCES "public"."helpdesk_contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "helpdesk_agent_categories_category_idx" ON "helpdesk_agent_categories" USING btree ("category_id");--> statement-breakpoint
CREATE INDEX "helpdesk_agents_site_idx" ON "helpdesk_agents" USING btree ("site_id");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdesk_categories_name_key" ON "helpdesk_categories" USING btree ("site_id",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "helpdesk_contacts_email_key" ON "helpdesk_contacts" USING btree ("site_id","email");--> statement-breakpoint
CREATE INDEX "helpdesk_contacts_member_idx" ON "helpdesk_contacts" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "helpdesk_drafts_ticket_idx" ON "helpdesk_drafts" USING btree ("ticket_id","created_at");--> statement-breakpoint
CREATE INDEX "helpdesk_entries_ticket_idx" ON "helpdesk_entries" USING btree ("ticket_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdesk_entries_message_key" ON "helpdesk_entries" USING btree ("site_id","message_id") WHERE "helpdesk_entries"."message_id" is not null;--> statement-breakpoint
CREATE INDEX "helpdesk_history_ticket_idx" ON "helpdesk_history" USING btree ("ticket_id","id");--> statement-breakpoint
CREATE INDEX "helpdesk_history_site_idx" ON "helpdesk_history" USING btree ("site_id","created_at","event");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdesk_tickets_number_key" ON "helpdesk_tickets" USING btree ("site_id","number");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_site_updated_idx" ON "helpdesk_tickets" USING btree ("site_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_site_status_idx" ON "helpdesk_tickets" USING btree ("site_id","status","updated_at");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_assignee_idx" ON "helpdesk_tickets" USING btree ("assignee_id","status");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_requester_idx" ON "helpdesk_tickets" USING btree ("requester_id");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_category_idx" ON "helpdesk_tickets" USING btree ("category_id");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_site_created_idx" ON "helpdesk_tickets" USING btree ("site_id","created_at");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_tags_idx" ON "helpdesk_tickets" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "helpdesk_tickets_search_idx" ON "helpdesk_tickets" USING gin (to_tsvector('english', "search_text"));--> statement-breakpoint
-- hand-written
-- The ticket history is append-only: rows go away only with their ticket or site.
CREATE FUNCTION "helpdesk_history_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'helpdesk_history is append-only';
END
$$;--> statement-breakpoint
CREATE TRIGGER "helpdesk_history_append_only" BEFORE UPDATE ON "helpdesk_history"
FOR EACH ROW EXECUTE FUNCTION "helpdesk_history_append_only"();
