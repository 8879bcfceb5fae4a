-- Up Migration

-- Ward scope reaches report SQL (contract G.1): besides its tenant, each report connection is
-- bound to the wards of the caller it is about to serve (null: every ward). The clinical views
-- read it with their owner's rights, as they read the tenant; the report role can neither read
-- nor write this table, so no report SQL can widen its own scope.
alter table report_sessions add column wards text[];

-- Down Migration
alter table report_sessions drop column wards;
