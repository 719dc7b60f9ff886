-- mindex schema v1: sources, documents, chunks, a full-text index kept in sync by triggers.
CREATE TABLE IF NOT EXISTS schema_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE sources (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    root       TEXT NOT NULL,
    options    TEXT NOT NULL DEFAULT '{}',   -- JSON: include/exclude globs
    created_at REAL NOT NULL,
    indexed_at REAL                          -- end of the last complete run
);

CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    source_id    INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    path         TEXT NOT NULL,              -- relative to the source root, '/' separated
    kind         TEXT NOT NULL,              -- the source kind: docs (later code, changelog, memory)
    title        TEXT NOT NULL DEFAULT '',
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    content_hash TEXT NOT NULL,              -- sha256 of the file's bytes
    metadata     TEXT NOT NULL DEFAULT '{}', -- JSON: front-matter, format, encoding, pages
    indexed_at   REAL NOT NULL,
    UNIQUE (source_id, path)
);

CREATE TABLE chunks (
    seq         INTEGER PRIMARY KEY,         -- rowid, shared with chunks_fts
    id          TEXT NOT NULL UNIQUE,        -- stable 16-hex id shown to users
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    title       TEXT NOT NULL,
    context     TEXT NOT NULL,               -- breadcrumb: path › H1 › H2
    text        TEXT NOT NULL,
    hash        TEXT NOT NULL,               -- sha1 of context + text
    start_line  INTEGER,                     -- 1-based, inclusive, in the original file
    end_line    INTEGER,
    page        INTEGER                      -- PDFs only
);
CREATE INDEX chunks_by_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_by_hash ON chunks (hash);

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, context, text,
    content = 'chunks', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, context, text)
    VALUES (new.seq, new.title, new.context, new.text);
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text)
    VALUES ('delete', old.seq, old.title, old.context, old.text);
END;
CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, context, text)
    VALUES ('delete', old.seq, old.title, old.context, old.text);
    INSERT INTO chunks_fts (rowid, title, context, text)
    VALUES (new.seq, new.title, new.context, new.text);
END;

CREATE TABLE skipped_files (
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    path      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    PRIMARY KEY (source_id, path)
);
