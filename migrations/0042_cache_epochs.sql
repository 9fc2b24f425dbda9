CREATE TABLE "cache_epochs" (
	"scope" text PRIMARY KEY NOT NULL,
	"epoch" bigint DEFAULT 0 NOT NULL,
	"moved_by" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cache_epochs_moved_by_idx" ON "cache_epochs" USING btree ("moved_by");--> statement-breakpoint
-- hand-written
-- The cache seam (docs/decisions/0111-cache-seam.md): every statement that writes what a cache
-- scope's readers read moves the scope's epoch in its own transaction, whoever writes. `moved_by` is
-- the writing transaction's id: a node polls the rows moved by transactions its last poll could not
-- see yet (`moved_by` >= that poll's snapshot xmin), so a long transaction committing late is never
-- missed. Scopes are locked in one order (sorted), so two statements never wait for each other in a
-- circle here.
CREATE FUNCTION "cache_epochs_move"("scopes" text[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "cache_epochs" ("scope", "epoch", "moved_by")
  SELECT "scope", 1, pg_current_xact_id()::text::bigint
  FROM (SELECT DISTINCT unnest("scopes") AS "scope") AS "moved" WHERE "scope" IS NOT NULL ORDER BY "scope"
  ON CONFLICT ("scope") DO UPDATE SET "epoch" = "cache_epochs"."epoch" + 1, "moved_by" = excluded."moved_by";
$$;--> statement-breakpoint
-- A statement trigger's function: the scope is TG_ARGV[0] followed by the column TG_ARGV[1] of each
-- row written (the transition table `changed`), or TG_ARGV[0] alone.
CREATE FUNCTION "cache_epochs_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "scopes" text[];
BEGIN
  IF TG_NARGS = 1 THEN
    "scopes" := ARRAY[TG_ARGV[0]];
  ELSE
    EXECUTE format('SELECT array_agg(DISTINCT %L || %I) FROM "changed"', TG_ARGV[0], TG_ARGV[1]) INTO "scopes";
  END IF;
  PERFORM "cache_epochs_move"("scopes");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sites_cache_inserted" AFTER INSERT ON "sites"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('site:', 'id');--> statement-breakpoint
CREATE TRIGGER "sites_cache_updated" AFTER UPDATE ON "sites"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('site:', 'id');--> statement-breakpoint
CREATE TRIGGER "sites_cache_deleted" AFTER DELETE ON "sites"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('site:', 'id');--> statement-breakpoint
CREATE TRIGGER "site_settings_cache_inserted" AFTER INSERT ON "site_settings"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('settings:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "site_settings_cache_updated" AFTER UPDATE ON "site_settings"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('settings:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "site_settings_cache_deleted" AFTER DELETE ON "site_settings"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('settings:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "plan_features_cache_written" AFTER INSERT OR UPDATE OR DELETE ON "plan_features"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('plans');--> statement-breakpoint
-- Nodes keep only proven credentials' rows: an insert moves nothing, and neither does the
-- `last_used_at` a verification records now and then (so a column list, and so a row trigger).
CREATE FUNCTION "credentials_cache_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "cache_epochs_move"(ARRAY['credential:' || OLD."id"]);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "credentials_cache_updated" AFTER UPDATE OF "id", "kind", "site_id", "subject_id", "name", "secret_hash", "scopes", "revoked_at" ON "credentials"
FOR EACH ROW EXECUTE FUNCTION "credentials_cache_moved"();--> statement-breakpoint
CREATE TRIGGER "credentials_cache_deleted" AFTER DELETE ON "credentials"
FOR EACH ROW EXECUTE FUNCTION "credentials_cache_moved"();--> statement-breakpoint
-- A site's content types (`cms-types:<site>`), and each type's published reads (`cms:<type>`),
-- which show the type too.
CREATE TRIGGER "cms_content_types_cache_inserted" AFTER INSERT ON "cms_content_types"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms-types:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_cache_updated" AFTER UPDATE ON "cms_content_types"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms-types:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_cache_deleted" AFTER DELETE ON "cms_content_types"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms-types:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_reads_updated" AFTER UPDATE ON "cms_content_types"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms:', 'id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_reads_deleted" AFTER DELETE ON "cms_content_types"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms:', 'id');--> statement-breakpoint
CREATE TRIGGER "cms_entries_cache_inserted" AFTER INSERT ON "cms_entries"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms:', 'type_id');--> statement-breakpoint
CREATE TRIGGER "cms_entries_cache_updated" AFTER UPDATE ON "cms_entries"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms:', 'type_id');--> statement-breakpoint
CREATE TRIGGER "cms_entries_cache_deleted" AFTER DELETE ON "cms_entries"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('cms:', 'type_id');--> statement-breakpoint
-- A site's help desk ticket lists show its tickets and their requesters.
CREATE TRIGGER "helpdesk_tickets_cache_inserted" AFTER INSERT ON "helpdesk_tickets"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_updated" AFTER UPDATE ON "helpdesk_tickets"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_deleted" AFTER DELETE ON "helpdesk_tickets"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_contacts_cache_updated" AFTER UPDATE ON "helpdesk_contacts"
REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_contacts_cache_deleted" AFTER DELETE ON "helpdesk_contacts"
REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_moved"('helpdesk:', 'site_id');
--> statement-breakpoint
-- Which forum an id or a slug names (`forum-slugs:<site>`): a forum created, deleted or whose slug
-- moved. Not any other write of a forum's row: the triggers on topics write its counts all the time.
CREATE FUNCTION "forums_cache_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "cache_epochs_move"(ARRAY['forum-slugs:' || OLD."site_id"]);
  ELSE
    PERFORM "cache_epochs_move"(ARRAY['forum-slugs:' || NEW."site_id"]);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "forums_cache_written" AFTER INSERT OR DELETE ON "forums"
FOR EACH ROW EXECUTE FUNCTION "forums_cache_moved"();--> statement-breakpoint
CREATE TRIGGER "forums_cache_slug_moved" AFTER UPDATE OF "slug" ON "forums"
FOR EACH ROW WHEN (OLD."slug" IS DISTINCT FROM NEW."slug") EXECUTE FUNCTION "forums_cache_moved"();
