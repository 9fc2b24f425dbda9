CREATE TABLE "deploy_blob_intents" (
	"id" text PRIMARY KEY NOT NULL,
	"hashes" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
