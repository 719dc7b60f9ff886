-- mindex schema v17: a chunk's content hash is 16 hex characters (64 bits of its SHA-1), like
-- its id, not 40: the hashes and their index were 7 MB of the stdlib's index. Stored hashes,
-- and the vectors and LLM-written contexts keyed by them, are cut in place, so nothing is
-- embedded or paid for again (two texts whose hashes share their first 64 bits, if ever,
-- lose what they would share). The update trigger now fires only for the columns the
-- full-text index reads, so this update (and any of other columns) leaves that index alone.
DROP TRIGGER chunks_after_update;
CREATE TRIGGER chunks_after_update AFTER UPDATE OF title, context, text, terms, document_id, start_line, end_line
ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text, terms)
    VALUES ('delete', old.seq, old.title, old.context,
            coalesce(nullif(old.text, ''), mindex_lines((SELECT packed FROM code_text WHERE document_id = old.document_id),
                                                        old.start_line, old.end_line), ''),
            old.terms);
    INSERT INTO chunks_fts (rowid, title, context, text, terms)
    VALUES (new.seq, new.title, new.context,
            coalesce(nullif(new.text, ''), mindex_lines((SELECT packed FROM code_text WHERE document_id = new.document_id),
                                                        new.start_line, new.end_line), ''),
            new.terms);
END;

UPDATE chunks SET hash = substr(hash, 1, 16) WHERE length(hash) > 16;
UPDATE OR IGNORE vectors SET hash = substr(hash, 1, 16) WHERE length(hash) > 16;
DELETE FROM vectors WHERE length(hash) > 16;
UPDATE OR IGNORE chunk_contexts SET hash = substr(hash, 1, 16) WHERE length(hash) > 16;
DELETE FROM chunk_contexts WHERE length(hash) > 16;
