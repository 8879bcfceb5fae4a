-- Up Migration

-- The SQLSTATE of the error that stopped a projection, when the database raised it (null when the
-- projection's own code threw). The error's message is for an administrator (GET
-- /api/admin/projections): it may quote a value of the event. The public /readyz names the stop by
-- this code and a fixed description of its class instead (issue #32, contract E.6).
alter table projection_generations add column error_code text;

-- Down Migration
alter table projection_generations drop column error_code;
