CREATE TABLE "deploy_pointer_epoch" (
	"id" integer PRIMARY KEY NOT NULL,
	"value" bigint NOT NULL
);

--> statement-breakpoint
-- hand-written
-- The one row every alias change counts up (docs/decisions/0069-lost-invalidations.md).
INSERT INTO "deploy_pointer_epoch" ("id", "value") VALUES (1, 0);
