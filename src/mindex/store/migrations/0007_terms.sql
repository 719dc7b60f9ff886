-- Schema v7: the words inside camelCase identifiers (`getRandomString` -> get random string),
-- written by the parser into chunks.terms, become a fourth full-text column.
ALTER TABLE chunks ADD COLUMN terms TEXT NOT NULL DEFAULT '';

DROP TRIGGER chunks_after_insert;
DROP TRIGGER chunks_after_delete;
DROP TRIGGER chunks_after_update;
DROP TABLE chunks_fts;

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, context, text, terms,
    content = 'chunks', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, context, text, terms)
    VALUES (new.seq, new.title, new.context, new.text, new.terms);
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text, terms)
    VALUES ('delete', old.seq, old.title, old.context, old.text, old.terms);
END;
CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text, terms)
    VALUES ('delete', old.seq, old.title, old.context, old.text, old.terms);
    INSERT INTO chunks_fts (rowid, title, context, text, terms)
    VALUES (new.seq, new.title, new.context, new.text, new.terms);
END;

INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
