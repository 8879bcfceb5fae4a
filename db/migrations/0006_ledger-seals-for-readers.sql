-- Up Migration

-- Reconciliation answers say whether a day's reports are sealed and give the root of the newest
-- block holding one of them (contract D.2). It reads as the tenant reader, which sees only read.*:
-- the blocks' ends and roots are shown there (hashes, nothing of any tenant's data). A block is
-- found by the end of its stretch in the sealer's reading order, hence the index.
create index ledger_blocks_by_end on ledger_blocks (last_tx, last_tx_position);

create view read.ledger_seals as
  select no, root, last_tx, last_tx_position from ledger_blocks;
grant select on read.ledger_seals to dh_tenant_reader;

-- Down Migration
drop view read.ledger_seals;
drop index ledger_blocks_by_end;
