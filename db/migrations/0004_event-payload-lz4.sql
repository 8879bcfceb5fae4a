-- Up Migration

-- A received report's event is some 7 KB of JSON, stored compressed out of line. lz4 compresses
-- it several times faster than the default pglz (the append of a 100-report push spends about a
-- third of its time compressing), and decompresses faster for projections and replays. Only new
-- values are written with it; a server built without lz4 (some embedded builds) keeps pglz.
do $$
begin
  alter table events alter column data set compression lz4;
  alter table events alter column metadata set compression lz4;
exception when feature_not_supported then
  raise notice 'this PostgreSQL has no lz4: event payloads stay compressed with pglz';
end
$$;
