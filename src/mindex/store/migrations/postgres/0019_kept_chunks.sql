-- mindex schema v19 (the version number SQLite indexes have; there, a re-indexed file keeps
-- the rows of its unchanged chunks). Here: a chunk's BM25 row length counts each field's runs
-- of letters and digits with one regexp_count, where mindex_length replaced every run of other
-- characters by a space and split the result, twice: the same numbers (a maximal run is one
-- word either way, no text counts 0), in a third of the time, which was a tenth of the
-- server's work a chunk. The lengths stored already are the same, so none is computed again.
CREATE OR REPLACE FUNCTION mindex_length(t TEXT) RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_count(coalesce(t, ''), '[[:alnum:]]+');
