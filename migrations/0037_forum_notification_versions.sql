CREATE TABLE "forum_visibility_versions" (
	"site_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "notification_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_visibility_versions" ADD CONSTRAINT "forum_visibility_versions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written
-- A node keeps a member's notification list total while the member's notification_version and the
-- community's visibility version stay put (docs/decisions/0106-notification-counts.md). Every write
-- to a member's notifications moves the first, once per statement, whoever writes: a new
-- notification, a read mark, a cascade from a deleted post, topic or member.
CREATE FUNCTION "forum_notifications_move_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "forum_members" SET "notification_version" = "notification_version" + 1
  WHERE "id" IN (SELECT DISTINCT "member_id" FROM "changed");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_notifications_inserted" AFTER INSERT ON "forum_notifications"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_notifications_move_version"();--> statement-breakpoint
CREATE TRIGGER "forum_notifications_updated" AFTER UPDATE ON "forum_notifications"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_notifications_move_version"();--> statement-breakpoint
CREATE TRIGGER "forum_notifications_deleted" AFTER DELETE ON "forum_notifications"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_notifications_move_version"();--> statement-breakpoint
-- What a member is shown of its notifications changes without a write to them when a post is
-- deleted or restored, a topic hidden, shown or moved, or a forum's visibility changes: each moves
-- the community's visibility version. Deleting a post, topic or forum deletes its notifications.
CREATE FUNCTION "forum_visibility_move_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "forum_visibility_versions" ("site_id", "version") VALUES (NEW."site_id", 1)
  ON CONFLICT ("site_id") DO UPDATE SET "version" = "forum_visibility_versions"."version" + 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_posts_visibility" AFTER UPDATE OF "deleted_at" ON "forum_posts"
FOR EACH ROW WHEN (OLD."deleted_at" IS DISTINCT FROM NEW."deleted_at") EXECUTE FUNCTION "forum_visibility_move_version"();--> statement-breakpoint
CREATE TRIGGER "forum_topics_visibility" AFTER UPDATE OF "hidden", "forum_id" ON "forum_topics"
FOR EACH ROW WHEN ((OLD."hidden", OLD."forum_id") IS DISTINCT FROM (NEW."hidden", NEW."forum_id")) EXECUTE FUNCTION "forum_visibility_move_version"();--> statement-breakpoint
CREATE TRIGGER "forums_visibility" AFTER UPDATE OF "visibility" ON "forums"
FOR EACH ROW WHEN (OLD."visibility" IS DISTINCT FROM NEW."visibility") EXECUTE FUNCTION "forum_visibility_move_version"();
