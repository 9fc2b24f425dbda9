CREATE TABLE "site_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"secret_hash" text NOT NULL,
	"invited_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "site_members" (
	"site_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "site_members_site_id_user_id_pk" PRIMARY KEY("site_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "site_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "site_env_vars" (
	"site_id" text NOT NULL,
	"name" text NOT NULL,
	"context" text NOT NULL,
	"value_sealed" text NOT NULL,
	"secret" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "site_env_vars_site_id_name_context_pk" PRIMARY KEY("site_id","name","context")
);
--> statement-breakpoint
ALTER TABLE "site_invitations" ADD CONSTRAINT "site_invitations_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_invitations" ADD CONSTRAINT "site_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_members" ADD CONSTRAINT "site_members_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_members" ADD CONSTRAINT "site_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_domains" ADD CONSTRAINT "site_domains_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_env_vars" ADD CONSTRAINT "site_env_vars_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "site_invitations_site_email_idx" ON "site_invitations" USING btree ("site_id","email");--> statement-breakpoint
CREATE INDEX "site_members_user_id_idx" ON "site_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "site_domains_site_id_idx" ON "site_domains" USING btree ("site_id");--> statement-breakpoint
CREATE TRIGGER "site_domains_cache_inserted" AFTER INSERT ON "site_domains"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('domain:', 'domain');--> statement-breakpoint
CREATE TRIGGER "site_domains_cache_updated" AFTER UPDATE ON "site_domains"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('domain:', 'domain');--> statement-breakpoint
CREATE TRIGGER "site_domains_cache_deleted" AFTER DELETE ON "site_domains"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('domain:', 'domain');--> statement-breakpoint
CREATE TRIGGER "site_domains_cache_truncated" BEFORE TRUNCATE ON "site_domains"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('domain:', 'domain');
