-- A ledger entry, once written, is history: the trigger ledger_entries_immutable (migration
-- 1763900000000) refuses every UPDATE and DELETE of ticketing.ledger_entries with this.
CREATE OR REPLACE FUNCTION ticketing.ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are immutable';
END $$;
