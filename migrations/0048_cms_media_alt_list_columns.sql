CREATE TABLE "cms_list_columns" (
	"site_id" text NOT NULL,
	"member_id" text NOT NULL,
	"type_slug" text NOT NULL,
	"columns" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cms_list_columns_member_id_type_slug_pk" PRIMARY KEY("member_id","type_slug")
);
--> statement-breakpoint
ALTER TABLE "cms_media" ADD COLUMN "alt" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "cms_media" ADD COLUMN "width" integer;--> statement-breakpoint
ALTER TABLE "cms_media" ADD COLUMN "height" integer;--> statement-breakpoint
ALTER TABLE "cms_list_columns" ADD CONSTRAINT "cms_list_columns_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_list_columns" ADD CONSTRAINT "cms_list_columns_member_id_forum_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."forum_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cms_list_columns_site_idx" ON "cms_list_columns" USING btree ("site_id");