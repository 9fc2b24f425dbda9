-- hand-written
-- A node keeps pages of a member's topic lists while the forums' topic_list_version, among other
-- versions, stays put (docs/decisions/0110-topic-lists-kept-per-node.md). A page shows every column
-- of its topics, so any change to a topic's row now moves its forum's version: a rename, a lock or
-- an author's account deleted too, which moved nothing before (0013). The rest is 0013's function.
CREATE OR REPLACE FUNCTION "forum_topics_keep_forum"() RETURNS trigger LANGUAGE plpgsql AS $$
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
  ELSIF TG_OP = 'UPDATE' AND OLD IS DISTINCT FROM NEW THEN
    UPDATE "forums" SET
      "hidden_topic_count" = "hidden_topic_count" + NEW."hidden"::int - OLD."hidden"::int,
      "post_count" = "post_count" + NEW."post_count" - OLD."post_count",
      "hidden_post_count" = "hidden_post_count" + CASE WHEN NEW."hidden" THEN NEW."post_count" ELSE 0 END - CASE WHEN OLD."hidden" THEN OLD."post_count" ELSE 0 END,
      "topic_list_version" = "topic_list_version" + 1
    WHERE "id" = NEW."forum_id";
  END IF;
  RETURN NULL;
END
$$;
