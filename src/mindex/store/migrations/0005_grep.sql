-- mindex schema v5: grep. The decoded text of every code file, and a trigram index over it
-- (detail=none: it answers "which files hold all these trigrams", the regex does the rest).
CREATE TABLE code_text (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text        TEXT NOT NULL
);

CREATE VIRTUAL TABLE code_trigrams USING fts5 (
    text, content = 'code_text', content_rowid = 'document_id',
    tokenize = 'trigram', detail = 'none'
);

CREATE TRIGGER code_text_after_insert AFTER INSERT ON code_text BEGIN
    INSERT INTO code_trigrams (rowid, text) VALUES (new.document_id, new.text);
END;
CREATE TRIGGER code_text_after_delete AFTER DELETE ON code_text BEGIN
    INSERT INTO code_trigrams (code_trigrams, rowid, text) VALUES ('delete', old.document_id, old.text);
END;

-- Code files indexed before v5 have no stored text: an emptied hash makes the next
-- `mindex index` read them again.
UPDATE documents SET content_hash = '' WHERE kind = 'code';
