-- mindex schema v21 (the version number SQLite indexes have; there, the names a large first
-- index writes are held back and moved into their tables in key order at its end). Here
-- nothing changes: this store keeps a row for each definition and reference.
SELECT 1;
