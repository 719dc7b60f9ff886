-- mindex schema v12: a code chunk whose text is exactly lines start_line..end_line of its
-- file stores '' as its text, and is read from the file's stored text (code_text, zlib):
-- code was kept twice, and the copy in chunks was a quarter of an index. `mindex_lines`, a
-- function every mindex connection registers, cuts those lines out of the packed text.
-- The full-text index still holds every word: its triggers hand it the text the same way
-- (a document's chunks are deleted before its code_text row, so the text is still there).
-- Chunks written before keep their text until their file is indexed again.
DROP TRIGGER chunks_after_delete;
DROP TRIGGER chunks_after_update;

CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text, terms)
    VALUES ('delete', old.seq, old.title, old.context,
            coalesce(nullif(old.text, ''), mindex_lines((SELECT packed FROM code_text WHERE document_id = old.document_id),
                                                        old.start_line, old.end_line), ''),
            old.terms);
END;
CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
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
