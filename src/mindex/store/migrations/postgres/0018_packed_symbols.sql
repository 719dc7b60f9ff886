-- mindex schema v18 (the version number SQLite indexes have): SQLite packs each document's
-- definitions into one row, PostgreSQL keeps one row per definition. Both drop chunks.symbol:
-- a code chunk's symbol is its title, which it held a second time.
ALTER TABLE chunks DROP COLUMN symbol;
