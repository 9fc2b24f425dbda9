CREATE TABLE "forum_visibility_versions" (
	"site_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "notification_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_members" ADD COLUMN "read_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "forum_visibility_versions" ADD CONSTRAINT "forum_visibility_versions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written
-- A node keeps a member's notification counts while the member's notification_version and the
-- community's visibility version stay put, and its unread topic counts while its read_version, the
-- visibility version and the forums' topic_list_version stay put
-- (docs/decisions/0106-counts-kept-per-node.md). Every write to a member's notifications moves the
-- first, and every write to its read marks the second, once per statement, whoever writes
-- (cascades from a deleted post, topic or member included). The column is the trigger's argument.
CREATE FUNCTION "forum_members_move_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE "forum_members" SET %1$I = %1$I + 1 WHERE "id" IN (SELECT DISTINCT "member_id" FROM "changed")', TG_ARGV[0]);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_notifications_inserted" AFTER INSERT ON "forum_notifications"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('notification_version');--> statement-breakpoint
CREATE TRIGGER "forum_notifications_updated" AFTER UPDATE ON "forum_notifications"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('notification_version');--> statement-breakpoint
CREATE TRIGGER "forum_notifications_deleted" AFTER DELETE ON "forum_notifications"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('notification_version');--> statement-breakpoint
CREATE TRIGGER "forum_topic_reads_inserted" AFTER INSERT ON "forum_topic_reads"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('read_version');--> statement-breakpoint
CREATE TRIGGER "forum_topic_reads_updated" AFTER UPDATE ON "forum_topic_reads"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('read_version');--> statement-breakpoint
CREATE TRIGGER "forum_topic_reads_deleted" AFTER DELETE ON "forum_topic_reads"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_members_move_version"('read_version');--> statement-breakpoint
-- read_before ("mark all read") moves read_version too.
CREATE FUNCTION "forum_members_read_before_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."read_version" := OLD."read_version" + 1;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_members_read_before" BEFORE UPDATE OF "read_before" ON "forum_members"
FOR EACH ROW WHEN (OLD."read_before" IS DISTINCT FROM NEW."read_before") EXECUTE FUNCTION "forum_members_read_before_moved"();--> statement-breakpoint
-- What a member may see changes without a write to its notifications or marks when a post is
-- deleted or restored, a topic hidden, shown or moved, or a forum's visibility changes or the
-- forum goes: each moves the community's visibility version (not when the community itself goes).
-- Deleting a post or topic deletes its notifications and marks.
CREATE FUNCTION "forum_visibility_move_version"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  site text := CASE WHEN TG_OP = 'DELETE' THEN OLD."site_id" ELSE NEW."site_id" END;
BEGIN
  INSERT INTO "forum_visibility_versions" ("site_id", "version")
  SELECT site, 1 WHERE EXISTS (SELECT 1 FROM "sites" WHERE "id" = site)
  ON CONFLICT ("site_id") DO UPDATE SET "version" = "forum_visibility_versions"."version" + 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_posts_visibility" AFTER UPDATE OF "deleted_at" ON "forum_posts"
FOR EACH ROW WHEN (OLD."deleted_at" IS DISTINCT FROM NEW."deleted_at") EXECUTE FUNCTION "forum_visibility_move_version"();--> statement-breakpoint
CREATE TRIGGER "forum_topics_visibility" AFTER UPDATE OF "hidden", "forum_id" ON "forum_topics"
FOR EACH ROW WHEN ((OLD."hidden", OLD."forum_id") IS DISTINCT FROM (NEW."hidden", NEW."forum_id")) EXECUTE FUNCTION "forum_visibility_move_version"();--> statement-breakpoint
CREATE TRIGGER "forums_visibility" AFTER UPDATE OF "visibility" ON "forums"
FOR EACH ROW WHEN (OLD."visibility" IS DISTINCT FROM NEW."visibility") EXECUTE FUNCTION "forum_visibility_move_version"();--> statement-breakpoint
CREATE TRIGGER "forums_deleted" AFTER DELETE ON "forums"
FOR EACH ROW EXECUTE FUNCTION "forum_visibility_move_version"();
