-- mindex schema v14 (the version number SQLite indexes have): SQLite builds grep's trigram
-- index at the first grep; PostgreSQL's pg_trgm index is kept by the server. Nothing
-- changes here.
SELECT 1;
