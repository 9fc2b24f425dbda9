-- hand-written
-- Every write to forum_topics keeps its forum's list counters and topic_list_version, whoever
-- writes (docs/decisions/0040-forum-list-invariants.md). The version moves when a topic joins or
-- leaves the forum's list or changes its place or visibility in it (hidden, pinned, last_post_at)
-- or its post count; a rename or a lock moves nothing.
CREATE FUNCTION "forum_topics_keep_forum"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."forum_id" IS DISTINCT FROM NEW."forum_id") THEN
    UPDATE "forums" SET
      "topic_count" = "topic_count" - 1,
      "hidden_topic_count" = "hidden_topic_count" - OLD."hidden"::int,
      "post_count" = "post_count" - OLD."post_count",
      "hidden_post_count" = "hidden_post_count" - CASE WHEN OLD."hidden" THEN OLD."post_count" ELSE 0 END,
      "topic_list_version" = "topic_list_version" + 1
    WHERE "id" = OLD."forum_id";
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD."forum_id" IS DISTINCT FROM NEW."forum_id") THEN
    UPDATE "forums" SET
      "topic_count" = "topic_count" + 1,
      "hidden_topic_count" = "hidden_topic_count" + NEW."hidden"::int,
      "post_count" = "post_count" + NEW."post_count",
      "hidden_post_count" = "hidden_post_count" + CASE WHEN NEW."hidden" THEN NEW."post_count" ELSE 0 END,
      "topic_list_version" = "topic_list_version" + 1
    WHERE "id" = NEW."forum_id";
  ELSIF TG_OP = 'UPDATE' AND (OLD."hidden", OLD."pinned", OLD."last_post_at", OLD."post_count") IS DISTINCT FROM (NEW."hidden", NEW."pinned", NEW."last_post_at", NEW."post_count") THEN
    UPDATE "forums" SET
      "hidden_topic_count" = "hidden_topic_count" + NEW."hidden"::int - OLD."hidden"::int,
      "post_count" = "post_count" + NEW."post_count" - OLD."post_count",
      "hidden_post_count" = "hidden_post_count" + CASE WHEN NEW."hidden" THEN NEW."post_count" ELSE 0 END - CASE WHEN OLD."hidden" THEN OLD."post_count" ELSE 0 END,
      "topic_list_version" = "topic_list_version" + 1
    WHERE "id" = NEW."forum_id";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forum_topics_keep_forum" AFTER INSERT OR UPDATE OR DELETE ON "forum_topics"
FOR EACH ROW EXECUTE FUNCTION "forum_topics_keep_forum"();
