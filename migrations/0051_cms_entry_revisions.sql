CREATE TABLE "cms_entry_revisions" (
	"entry_id" text NOT NULL,
	"site_id" text NOT NULL,
	"version" integer NOT NULL,
	"slug" text,
	"status" text NOT NULL,
	"published_at" timestamp with time zone,
	"data" jsonb NOT NULL,
	"author_kind" text NOT NULL,
	"author_id" text NOT NULL,
	"author_name" text NOT NULL,
	"restored_from" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cms_entry_revisions_entry_id_version_pk" PRIMARY KEY("entry_id","version")
);
--> statement-breakpoint
ALTER TABLE "cms_entry_revisions" ADD CONSTRAINT "cms_entry_revisions_entry_id_cms_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."cms_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_entry_revisions" ADD CONSTRAINT "cms_entry_revisions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;