CREATE TABLE "cms_media" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"sha256" text NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cms_media" ADD CONSTRAINT "cms_media_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cms_media_site_idx" ON "cms_media" USING btree ("site_id","created_at","id");