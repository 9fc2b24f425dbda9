CREATE TABLE "purchase_workspaces" (
	"site_id" text PRIMARY KEY NOT NULL,
	"credential_id" text NOT NULL,
	"pending_owner_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "purchase_workspaces" ADD CONSTRAINT "purchase_workspaces_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_workspaces" ADD CONSTRAINT "purchase_workspaces_pending_owner_id_users_id_fk" FOREIGN KEY ("pending_owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "purchase_workspaces_credential_idx" ON "purchase_workspaces" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "purchase_workspaces_pending_idx" ON "purchase_workspaces" USING btree ("pending_owner_id");--> statement-breakpoint
-- Workspaces provisioned before keys were scoped stay with the key that provisioned them, as the
-- audit log recorded it (a site made after that call, under a reused id, is not that workspace).
INSERT INTO "purchase_workspaces" ("site_id", "credential_id", "created_at")
SELECT DISTINCT ON (a."target") a."target", a."credential_id", a."created_at"
FROM "audit_log" a JOIN "sites" s ON s."id" = a."target"
WHERE a."method" = 'POST' AND a."path" = '/api/purchase/v1/workspaces' AND a."status" = 201
  AND a."credential_id" IS NOT NULL AND a."created_at" >= s."created_at"
ORDER BY a."target", a."created_at" DESC;
