CREATE TABLE "cache_changes" (
	"scope" text NOT NULL,
	"epoch" bigint NOT NULL,
	"moved_by" bigint NOT NULL,
	"changes" jsonb NOT NULL,
	CONSTRAINT "cache_changes_scope_epoch_pk" PRIMARY KEY("scope","epoch")
);
--> statement-breakpoint
CREATE INDEX "cache_changes_moved_by_idx" ON "cache_changes" USING btree ("moved_by");--> statement-breakpoint
-- hand-written
-- Described moves (docs/decisions/0150-described-moves.md): the help desk's tickets and entries move
-- the scope `helpdesk:<site>` as before, and file what each statement changed under the epoch it
-- moved the scope to, in the same transaction. A node reads the changes with the epochs, and keeps a
-- list a change cannot have touched (src/helpdesk/cached-lists.ts). A statement of more than 100 rows
-- of a scope files nothing: its move ends everything kept under the scope, as every other move does.
CREATE FUNCTION "cache_epochs_move_described"("described" jsonb) RETURNS void LANGUAGE sql AS $$
  WITH "moved" AS (
    INSERT INTO "cache_epochs" ("scope", "epoch", "moved_by")
    SELECT "key", 1, pg_current_xact_id()::text::bigint FROM jsonb_each("described") ORDER BY "key"
    ON CONFLICT ("scope") DO UPDATE SET "epoch" = "cache_epochs"."epoch" + 1, "moved_by" = excluded."moved_by"
    RETURNING "scope", "epoch", "moved_by"
  ), "filed" AS (
    INSERT INTO "cache_changes" ("scope", "epoch", "moved_by", "changes")
    SELECT "scope", "epoch", "moved_by", "described" -> "scope" FROM "moved"
    WHERE jsonb_typeof("described" -> "scope") = 'array'
    ON CONFLICT ("scope", "epoch") DO UPDATE SET "moved_by" = excluded."moved_by", "changes" = excluded."changes"
  )
  DELETE FROM "cache_changes" "c" USING "moved" "m" WHERE "c"."scope" = "m"."scope" AND "c"."epoch" <= "m"."epoch" - 256;
$$;--> statement-breakpoint
-- What a ticket list filters by, of one ticket row.
CREATE FUNCTION "helpdesk_ticket_filtered"("t" "helpdesk_tickets") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('status', "t"."status", 'priority', "t"."priority", 'category_id', "t"."category_id",
    'assignee_id', "t"."assignee_id", 'requester_id', "t"."requester_id", 'tags', "t"."tags", 'created_at', "t"."created_at");
$$;--> statement-breakpoint
-- Each written ticket: its id, what lists filter by before and after, and the words of its subject
-- where the subject is new.
CREATE FUNCTION "helpdesk_tickets_described"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "described" jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 100 THEN (
      SELECT jsonb_agg(jsonb_build_object('id', "a"."id", 'before', null, 'after', "helpdesk_ticket_filtered"("a"),
        'words', tsvector_to_array(to_tsvector('english', "a"."subject"))))
      FROM "after" "a" WHERE "a"."site_id" = "c"."site_id") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "after" GROUP BY 1) "c";
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 100 THEN (
      SELECT jsonb_agg(jsonb_build_object('id', "a"."id", 'before', "helpdesk_ticket_filtered"("b"), 'after', "helpdesk_ticket_filtered"("a"),
        'words', CASE WHEN "a"."subject" IS DISTINCT FROM "b"."subject" THEN tsvector_to_array(to_tsvector('english', "a"."subject")) END))
      FROM "after" "a" JOIN "before" "b" ON "b"."id" = "a"."id" WHERE "a"."site_id" = "c"."site_id") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "after" GROUP BY 1) "c";
  ELSE
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 100 THEN (
      SELECT jsonb_agg(jsonb_build_object('id', "b"."id", 'before', "helpdesk_ticket_filtered"("b"), 'after', null, 'words', null))
      FROM "before" "b" WHERE "b"."site_id" = "c"."site_id") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "before" GROUP BY 1) "c";
  END IF;
  IF "described" IS NOT NULL THEN PERFORM "cache_epochs_move_described"("described"); END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Each written entry: its ticket, with the words of its text where the text is new (an insert, the
-- ticket an entry moved to), or `lost` where the ticket lost the text (a delete, the ticket an entry
-- moved from).
CREATE FUNCTION "helpdesk_entries_described"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "described" jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 100 THEN (
      SELECT jsonb_agg(jsonb_build_object('id', "a"."ticket_id",
        'words', tsvector_to_array(to_tsvector('english', left("a"."body_text", 100000)))))
      FROM "after" "a" WHERE "a"."site_id" = "c"."site_id") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "after" GROUP BY 1) "c";
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 50 THEN (
      SELECT jsonb_agg("change") FROM (
        SELECT jsonb_build_object('id', "b"."ticket_id", 'lost', true) AS "change"
        FROM "before" "b" WHERE "b"."site_id" = "c"."site_id"
        UNION ALL
        SELECT jsonb_build_object('id', "a"."ticket_id",
          'words', tsvector_to_array(to_tsvector('english', left("a"."body_text", 100000))))
        FROM "after" "a" WHERE "a"."site_id" = "c"."site_id") "changes") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "after" GROUP BY 1) "c";
  ELSE
    SELECT jsonb_object_agg('helpdesk:' || "c"."site_id", CASE WHEN "c"."n" <= 100 THEN (
      SELECT jsonb_agg(jsonb_build_object('id', "b"."ticket_id", 'lost', true))
      FROM "before" "b" WHERE "b"."site_id" = "c"."site_id") END)
    INTO "described" FROM (SELECT "site_id", count(*) AS "n" FROM "before" GROUP BY 1) "c";
  END IF;
  IF "described" IS NOT NULL THEN PERFORM "cache_epochs_move_described"("described"); END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER "helpdesk_tickets_cache_inserted" ON "helpdesk_tickets";--> statement-breakpoint
DROP TRIGGER "helpdesk_tickets_cache_updated" ON "helpdesk_tickets";--> statement-breakpoint
DROP TRIGGER "helpdesk_tickets_cache_deleted" ON "helpdesk_tickets";--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_inserted" AFTER INSERT ON "helpdesk_tickets"
REFERENCING NEW TABLE AS "after" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_tickets_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_updated" AFTER UPDATE ON "helpdesk_tickets"
REFERENCING OLD TABLE AS "before" NEW TABLE AS "after" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_tickets_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_deleted" AFTER DELETE ON "helpdesk_tickets"
REFERENCING OLD TABLE AS "before" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_tickets_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_entries_cache_inserted" AFTER INSERT ON "helpdesk_entries"
REFERENCING NEW TABLE AS "after" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_entries_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_entries_cache_updated" AFTER UPDATE ON "helpdesk_entries"
REFERENCING OLD TABLE AS "before" NEW TABLE AS "after" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_entries_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_entries_cache_deleted" AFTER DELETE ON "helpdesk_entries"
REFERENCING OLD TABLE AS "before" FOR EACH STATEMENT EXECUTE FUNCTION "helpdesk_entries_described"();--> statement-breakpoint
CREATE TRIGGER "helpdesk_entries_cache_truncated" BEFORE TRUNCATE ON "helpdesk_entries"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('helpdesk:', 'site_id');
