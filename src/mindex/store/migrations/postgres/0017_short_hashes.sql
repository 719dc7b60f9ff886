-- mindex schema v17: a chunk's content hash is 16 hex characters (see the SQLite twin). Stored
-- hashes, and the vectors and contexts keyed by them, are cut in place (of two rows whose
-- hashes share their first 64 bits, if ever, one is kept).
UPDATE chunks SET hash = left(hash, 16) WHERE length(hash) > 16;
DELETE FROM vectors v WHERE length(v.hash) > 16 AND EXISTS (
    SELECT 1 FROM vectors w WHERE w.model = v.model AND left(w.hash, 16) = left(v.hash, 16)
    AND (length(w.hash) = 16 OR w.hash < v.hash));
UPDATE vectors SET hash = left(hash, 16) WHERE length(hash) > 16;
DELETE FROM chunk_contexts v WHERE length(v.hash) > 16 AND EXISTS (
    SELECT 1 FROM chunk_contexts w WHERE w.model = v.model AND left(w.hash, 16) = left(v.hash, 16)
    AND (length(w.hash) = 16 OR w.hash < v.hash));
UPDATE chunk_contexts SET hash = left(hash, 16) WHERE length(hash) > 16;
