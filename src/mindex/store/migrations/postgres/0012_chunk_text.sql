-- mindex schema v12 (the version number SQLite indexes have): on SQLite a code chunk's text
-- is read from its file's stored text; PostgreSQL keeps every chunk's text as before, and
-- `mindex copy` moves whole texts both ways. Nothing changes here.
SELECT 1;
