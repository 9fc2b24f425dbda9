-- Paired indexes for existing content types (src/cms/content-types.ts makes them for new ones and on
-- type changes; docs/decisions/0130-cms-paired-indexes.md): each enum or boolean field that has its
-- own index, with every other field that has one, in field order, at most 16 pairs a type, named
-- `cmsc_<type>_<first 12 hex digits of sha256(first || '\n' || second)>`, on the expressions of the
-- two fields' own indexes.
DO $$
DECLARE
  t record;
  first record;
  second record;
  made integer;
  name text;
BEGIN
  FOR t IN SELECT id, fields FROM cms_content_types LOOP
    made := 0;
    FOR first IN
      SELECT f.value ->> 'name' AS field, pg_get_indexdef(c.oid, 1, true) AS expression
      FROM jsonb_array_elements(t.fields) WITH ORDINALITY AS f(value, n)
      JOIN pg_class c ON c.relname IN ('cmsx_' || t.id || '_' || (f.value ->> 'name'), 'cmsu_' || t.id || '_' || (f.value ->> 'name'))
      WHERE f.value ->> 'type' IN ('enum', 'boolean')
      ORDER BY f.n
    LOOP
      FOR second IN
        SELECT f.value ->> 'name' AS field, pg_get_indexdef(c.oid, 1, true) AS expression
        FROM jsonb_array_elements(t.fields) WITH ORDINALITY AS f(value, n)
        JOIN pg_class c ON c.relname IN ('cmsx_' || t.id || '_' || (f.value ->> 'name'), 'cmsu_' || t.id || '_' || (f.value ->> 'name'))
        WHERE f.value ->> 'name' <> first.field
        ORDER BY f.n
      LOOP
        EXIT WHEN made >= 16;
        name := 'cmsc_' || t.id || '_' || left(encode(sha256(convert_to(first.field || E'\n' || second.field, 'UTF8')), 'hex'), 12);
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON cms_entries ((%s), (%s), id) WHERE type_id = %L',
          name, first.expression, second.expression, t.id);
        made := made + 1;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
