ALTER TABLE "deploy_github_deliveries" ADD COLUMN "ref" text;--> statement-breakpoint
ALTER TABLE "deploy_github_deliveries" ADD COLUMN "before_commit" text;--> statement-breakpoint
ALTER TABLE "deploy_github_deliveries" ADD COLUMN "after_commit" text;--> statement-breakpoint
CREATE UNIQUE INDEX "deploy_github_deliveries_push_key" ON "deploy_github_deliveries" USING btree ("site_id","ref","before_commit","after_commit");