-- Custom SQL migration file, put your code below! --
-- hand-written
-- TRUNCATE moves the cache seam's epochs too (docs/decisions/0129-http-etags.md; the seam:
-- 0042_cache_epochs.sql, docs/decisions/0111-cache-seam.md). A TRUNCATE trigger has no transition
-- table, so it fires BEFORE the rows go and reads them from the table itself: every scope a row of
-- it files under moves, in the truncating transaction. A TRUNCATE ... CASCADE fires the triggers of
-- every table it empties. The read is a whole-table scan, as rare as a TRUNCATE.
CREATE FUNCTION "cache_epochs_truncating"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "scopes" text[];
BEGIN
  IF TG_NARGS = 1 THEN
    "scopes" := ARRAY[TG_ARGV[0]];
  ELSE
    EXECUTE format('SELECT array_agg(DISTINCT %L || %I) FROM %I.%I', TG_ARGV[0], TG_ARGV[1], TG_TABLE_SCHEMA, TG_TABLE_NAME)
    INTO "scopes";
  END IF;
  PERFORM "cache_epochs_move"("scopes");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sites_cache_truncated" BEFORE TRUNCATE ON "sites"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('site:', 'id');--> statement-breakpoint
CREATE TRIGGER "site_settings_cache_truncated" BEFORE TRUNCATE ON "site_settings"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('settings:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "plan_features_cache_truncated" BEFORE TRUNCATE ON "plan_features"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('plans');--> statement-breakpoint
CREATE TRIGGER "credentials_cache_truncated" BEFORE TRUNCATE ON "credentials"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('credential:', 'id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_cache_truncated" BEFORE TRUNCATE ON "cms_content_types"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('cms-types:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "cms_content_types_reads_truncated" BEFORE TRUNCATE ON "cms_content_types"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('cms:', 'id');--> statement-breakpoint
CREATE TRIGGER "cms_entries_cache_truncated" BEFORE TRUNCATE ON "cms_entries"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('cms:', 'type_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_tickets_cache_truncated" BEFORE TRUNCATE ON "helpdesk_tickets"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "helpdesk_contacts_cache_truncated" BEFORE TRUNCATE ON "helpdesk_contacts"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('helpdesk:', 'site_id');--> statement-breakpoint
CREATE TRIGGER "forums_cache_truncated" BEFORE TRUNCATE ON "forums"
FOR EACH STATEMENT EXECUTE FUNCTION "cache_epochs_truncating"('forum-slugs:', 'site_id');
