-- mindex schema v13 (the version number SQLite indexes have): SQLite stores a reference's
-- enclosing definition as a number into ref_scopes; PostgreSQL keeps the name in refs.scope,
-- and `mindex copy` moves names both ways. Nothing changes here.
SELECT 1;
