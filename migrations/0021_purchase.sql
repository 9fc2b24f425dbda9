CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"credential_id" text,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"target" text,
	"status" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchase_idempotency" (
	"credential_id" text NOT NULL,
	"key" text NOT NULL,
	"body_hash" text NOT NULL,
	"status" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "purchase_idempotency_credential_id_key_pk" PRIMARY KEY("credential_id","key")
);
--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "canceled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "audit_log_created_idx" ON "audit_log" USING btree ("created_at","id");