-- mindex schema v22: a chunk's id is found through an index of its own (chunks_by_id) instead of
-- the table's UNIQUE constraint, which no statement can drop: a large first index (`bulk_load`)
-- now leaves it out while it writes and builds it once at the end, as it does the other
-- indexes of chunks. An id is 16 hex characters of a hash (source, path, context, text and its
-- repeat within the file: unique by making), so each insert touched a random page of that index,
-- and each commit wrote such pages again. The table is made again with the same columns and rows
-- (the full-text index keeps its rows: it finds the table by name, and `seq` is unchanged), then
-- its indexes and triggers.
CREATE TABLE chunks_v22 (
    seq         INTEGER PRIMARY KEY,         -- rowid, shared with chunks_fts
    id          TEXT NOT NULL,               -- stable 16-hex id shown to users (chunks_by_id)
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    title       TEXT NOT NULL,
    context     TEXT NOT NULL,               -- breadcrumb: path › H1 › H2
    text        TEXT NOT NULL,               -- '' for a code chunk whose text is lines of its file (v12)
    hash        TEXT NOT NULL,               -- first 16 hex of the sha1 of context + text (v17)
    start_line  INTEGER,                     -- 1-based, inclusive, in the original file
    end_line    INTEGER,
    page        INTEGER,                     -- PDFs only
    symbol_kind TEXT,
    terms       TEXT NOT NULL DEFAULT '',
    at          REAL,
    facets      TEXT
);
INSERT INTO chunks_v22 (seq, id, document_id, ordinal, title, context, text, hash, start_line, end_line, page,
                        symbol_kind, terms, at, facets)
    SELECT seq, id, document_id, ordinal, title, context, text, hash, start_line, end_line, page,
           symbol_kind, terms, at, facets FROM chunks;
DROP TABLE chunks;
ALTER TABLE chunks_v22 RENAME TO chunks;
CREATE INDEX chunks_by_id ON chunks (id);
CREATE INDEX chunks_by_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_by_hash ON chunks (hash);

CREATE TRIGGER chunks_facets_after_delete AFTER DELETE ON chunks WHEN old.facets IS NOT NULL BEGIN
    DELETE FROM chunk_facets WHERE seq = old.seq;
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text, terms)
    VALUES ('delete', old.seq, old.title, old.context,
            coalesce(nullif(old.text, ''), mindex_lines((SELECT packed FROM code_text WHERE document_id = old.document_id),
                                                        old.start_line, old.end_line), ''),
            old.terms);
END;
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
-- a bulk load killed before its end builds its indexes again at the next open ("IF NOT EXISTS")
