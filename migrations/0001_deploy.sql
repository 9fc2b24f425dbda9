CREATE TABLE "deploy_promotions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deploy_promotions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"site_id" text NOT NULL,
	"release_id" text NOT NULL,
	"action" text NOT NULL,
	"previous_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_release_files" (
	"release_id" text NOT NULL,
	"path" text NOT NULL,
	"hash" text NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text NOT NULL,
	"gzip_size" bigint,
	"brotli_size" bigint,
	CONSTRAINT "deploy_release_files_release_id_path_pk" PRIMARY KEY("release_id","path")
);
--> statement-breakpoint
CREATE TABLE "deploy_releases" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"source" text NOT NULL,
	"file_count" integer NOT NULL,
	"size" bigint NOT NULL,
	"new_blobs" integer NOT NULL,
	"promotable" boolean DEFAULT true NOT NULL,
	"build_id" text,
	"git" jsonb,
	"rules" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_site_aliases" (
	"site_id" text PRIMARY KEY NOT NULL,
	"live_release_id" text,
	"live_promotion_id" bigint,
	"stage_release_id" text,
	"preview_password" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_promotions" ADD CONSTRAINT "deploy_promotions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_promotions" ADD CONSTRAINT "deploy_promotions_release_id_deploy_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."deploy_releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_release_files" ADD CONSTRAINT "deploy_release_files_release_id_deploy_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."deploy_releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_releases" ADD CONSTRAINT "deploy_releases_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_site_aliases" ADD CONSTRAINT "deploy_site_aliases_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_site_aliases" ADD CONSTRAINT "deploy_site_aliases_live_release_id_deploy_releases_id_fk" FOREIGN KEY ("live_release_id") REFERENCES "public"."deploy_releases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_site_aliases" ADD CONSTRAINT "deploy_site_aliases_stage_release_id_deploy_releases_id_fk" FOREIGN KEY ("stage_release_id") REFERENCES "public"."deploy_releases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deploy_promotions_site_idx" ON "deploy_promotions" USING btree ("site_id","id");--> statement-breakpoint
CREATE INDEX "deploy_release_files_hash_idx" ON "deploy_release_files" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "deploy_releases_site_idx" ON "deploy_releases" USING btree ("site_id","created_at");