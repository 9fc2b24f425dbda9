CREATE TABLE "helpdesk_inbound_tokens" (
	"site_id" text NOT NULL,
	"token" text NOT NULL,
	"body_digest" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "helpdesk_inbound_tokens_site_id_token_pk" PRIMARY KEY("site_id","token")
);
--> statement-breakpoint
ALTER TABLE "helpdesk_inbound_tokens" ADD CONSTRAINT "helpdesk_inbound_tokens_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "helpdesk_inbound_tokens_received_idx" ON "helpdesk_inbound_tokens" USING btree ("site_id","received_at");