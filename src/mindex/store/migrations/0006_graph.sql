-- mindex schema v6: the code graph. Whether a symbol is visible outside its file, and every
-- reference a file makes (calls, imports, base classes) with the definition it sits in.
-- References are resolved to symbols when asked (mindex.graph), so an edit to one file never
-- leaves another file's edges stale.
ALTER TABLE symbols ADD COLUMN exported INTEGER NOT NULL DEFAULT 1;
CREATE INDEX symbols_by_name ON symbols (name);

CREATE TABLE refs (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,              -- call, import, extends, implements
    name        TEXT NOT NULL,              -- the name used: send (call), Session (import), Base
    qualifier   TEXT NOT NULL DEFAULT '',   -- call: the receiver (self.adapter); import: the module
    alias       TEXT NOT NULL DEFAULT '',   -- import: the local name it binds
    line        INTEGER NOT NULL,
    scope       TEXT NOT NULL DEFAULT ''    -- qualified name of the definition it is in; '' = module
);
CREATE INDEX refs_by_name ON refs (name, kind);
CREATE INDEX refs_by_document ON refs (document_id, scope);

-- Code files indexed before v6 have no references: re-read them on the next `mindex index`.
UPDATE documents SET content_hash = '' WHERE kind = 'code';
