-- mindex schema v22 (the version number SQLite indexes have; there, a chunk's id is found through
-- an index a large first index can leave out while it writes). Here nothing changes: this
-- store's bulk load keeps its indexes, and copies its rows in.
SELECT 1;
