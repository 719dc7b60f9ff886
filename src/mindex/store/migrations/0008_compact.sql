-- mindex schema v8: a smaller index, written faster. A code file's text is stored once, zlib-compressed
-- (`mindex_inflate`, a function every mindex connection registers, reads it back); the
-- trigram index keeps no copy of it (contentless: deletes hand it the inflated text).
-- References lose their rowid and their by-document index: the table itself is ordered by
-- document (n = the reference's place in its file).
DROP TRIGGER code_text_after_insert;
DROP TRIGGER code_text_after_delete;
DROP TABLE code_trigrams;
DROP TABLE code_text;

CREATE TABLE code_text (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    packed      BLOB NOT NULL               -- zlib of the UTF-8 text (surrogates passed through)
);

CREATE VIRTUAL TABLE code_trigrams USING fts5 (
    text, content = '', tokenize = 'trigram', detail = 'none'
);

CREATE TRIGGER code_text_after_delete AFTER DELETE ON code_text BEGIN
    INSERT INTO code_trigrams (code_trigrams, rowid, text)
    VALUES ('delete', old.document_id, mindex_inflate(old.packed));
END;

CREATE TABLE refs_v8 (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    qualifier   TEXT NOT NULL DEFAULT '',
    alias       TEXT NOT NULL DEFAULT '',
    line        INTEGER NOT NULL,
    scope       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (document_id, n)
) WITHOUT ROWID;
INSERT INTO refs_v8 (document_id, n, kind, name, qualifier, alias, line, scope)
    SELECT document_id, row_number() OVER (PARTITION BY document_id ORDER BY rowid), kind, name, qualifier,
           alias, line, scope FROM refs;
DROP TABLE refs;
ALTER TABLE refs_v8 RENAME TO refs;
CREATE INDEX refs_by_name ON refs (name, kind);

-- A batch's new chunks enter the full-text index in one INSERT ... SELECT after the batch
-- (`SQLiteStore.write_batch`): three times faster than a trigger firing per row, and the
-- index comes out smaller. Deletes and updates still go through their triggers.
DROP TRIGGER chunks_after_insert;

-- Code files lost their stored text: the next `mindex index` reads them again (until it
-- has, grep says so; the flag spares every grep a count of the files without text).
UPDATE documents SET content_hash = '' WHERE kind = 'code';
INSERT OR REPLACE INTO schema_meta VALUES ('code_text_missing', '1');
