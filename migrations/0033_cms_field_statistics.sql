-- Statistics objects for the field indexes of existing content types (src/cms/content-types.ts makes
-- them for new ones): `cmss_<type>_<field>` beside each `cmsx_`/`cmsu_` index, on its expression.
DO $$
DECLARE
  ix record;
BEGIN
  FOR ix IN
    SELECT c.relname AS name, pg_get_indexdef(c.oid, 1, true) AS expression
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = 'cms_entries'::regclass AND c.relname ~ '^cms[ux]_'
  LOOP
    EXECUTE format('CREATE STATISTICS IF NOT EXISTS %I ON type_id, (%s) FROM cms_entries', 'cmss' || substr(ix.name, 5), ix.expression);
  END LOOP;
END $$;
