-- hand-written
-- The changes of a scope's last 256 moves take the slots `epoch % 256` (decision 0152): a move
-- writes over the changes filed 256 moves before instead of deleting them. Deleted rows stayed in
-- the table and its index until a vacuum, and each move's delete walked all of them again. What is
-- filed now is dropped: the next move of each scope ends what nodes keep under it, as any move
-- without its changes does.
DELETE FROM "cache_changes";--> statement-breakpoint
ALTER TABLE "cache_changes" DROP CONSTRAINT "cache_changes_scope_epoch_pk";--> statement-breakpoint
ALTER TABLE "cache_changes" ADD COLUMN "slot" smallint NOT NULL;--> statement-breakpoint
ALTER TABLE "cache_changes" ADD CONSTRAINT "cache_changes_scope_slot_pk" PRIMARY KEY("scope","slot");--> statement-breakpoint
CREATE OR REPLACE FUNCTION "cache_epochs_move_described"("described" jsonb) RETURNS void LANGUAGE sql AS $$
  WITH "moved" AS (
    INSERT INTO "cache_epochs" ("scope", "epoch", "moved_by")
    SELECT "key", 1, pg_current_xact_id()::text::bigint FROM jsonb_each("described") ORDER BY "key"
    ON CONFLICT ("scope") DO UPDATE SET "epoch" = "cache_epochs"."epoch" + 1, "moved_by" = excluded."moved_by"
    RETURNING "scope", "epoch", "moved_by"
  )
  INSERT INTO "cache_changes" ("scope", "slot", "epoch", "moved_by", "changes")
  SELECT "scope", ("epoch" % 256)::smallint, "epoch", "moved_by", "described" -> "scope" FROM "moved"
  WHERE jsonb_typeof("described" -> "scope") = 'array'
  ON CONFLICT ("scope", "slot") DO UPDATE
    SET "epoch" = excluded."epoch", "moved_by" = excluded."moved_by", "changes" = excluded."changes";
$$;
