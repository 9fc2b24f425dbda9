CREATE TABLE "forum_author_versions" (
	"site_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forum_topic_versions" (
	"topic_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forum_author_versions" ADD CONSTRAINT "forum_author_versions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written
-- A node keeps pages of a topic's posts while the topic's version and its community's author
-- version stay put (docs/decisions/0109-topic-pages-kept-per-node.md). Every statement that writes
-- posts moves the version of each topic it touched, whoever writes (likes, edits, tombstones, an
-- author's account deleted); a topic deleted in the same transaction is skipped, and its row goes
-- with it.
CREATE FUNCTION "forum_topic_versions_move"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "forum_topic_versions" ("topic_id", "version")
  SELECT DISTINCT "changed"."topic_id", 1 FROM "changed"
  WHERE EXISTS (SELECT 1 FROM "forum_topics" WHERE "forum_topics"."id" = "changed"."topic_id")
  ON CONFLICT ("topic_id") DO UPDATE SET "version" = "forum_topic_versions"."version" + 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_posts_inserted" AFTER INSERT ON "forum_posts"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_topic_versions_move"();--> statement-breakpoint
CREATE TRIGGER "forum_posts_updated" AFTER UPDATE ON "forum_posts"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_topic_versions_move"();--> statement-breakpoint
CREATE TRIGGER "forum_posts_deleted" AFTER DELETE ON "forum_posts"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "forum_topic_versions_move"();--> statement-breakpoint
CREATE FUNCTION "forum_topic_versions_drop"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "forum_topic_versions" WHERE "topic_id" IN (SELECT "id" FROM "gone");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_topics_deleted" AFTER DELETE ON "forum_topics"
REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "forum_topic_versions_drop"();--> statement-breakpoint
-- A member's name or avatar shows on every page of posts it wrote: a change moves the community's
-- author version.
CREATE FUNCTION "forum_author_versions_move"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "forum_author_versions" ("site_id", "version")
  SELECT NEW."site_id", 1 WHERE EXISTS (SELECT 1 FROM "sites" WHERE "id" = NEW."site_id")
  ON CONFLICT ("site_id") DO UPDATE SET "version" = "forum_author_versions"."version" + 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_members_shown" AFTER UPDATE OF "username", "avatar_upload_id" ON "forum_members"
FOR EACH ROW WHEN ((OLD."username", OLD."avatar_upload_id") IS DISTINCT FROM (NEW."username", NEW."avatar_upload_id")) EXECUTE FUNCTION "forum_author_versions_move"();
