-- mindex schema v15 (the version number SQLite indexes have): SQLite packs each document's
-- references into one row; PostgreSQL keeps one row per reference. Nothing changes here.
SELECT 1;
