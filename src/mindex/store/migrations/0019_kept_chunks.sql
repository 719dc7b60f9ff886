-- mindex schema v19: a re-indexed file keeps the rows of its chunks whose text did not change
-- (store/sqlite/chunks.py, `write_batch`), and only their lines and order are brought up to
-- date: an edit near the top of a file moves every chunk below it. The update trigger would
-- take each moved chunk out of the full-text index and put it back (tokenizing its text twice)
-- although its text is the same; it now holds back while the writer moves such rows
-- (`mindex_moving()`, a function of the writer's connection, is 1 only then).
DROP TRIGGER chunks_after_update;
CREATE TRIGGER chunks_after_update AFTER UPDATE OF title, context, text, terms, document_id, start_line, end_line
ON chunks WHEN NOT mindex_moving() BEGIN
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
