-- mindex schema v4: code. A document's language, the symbol each chunk holds or sits in, and
-- every definition of a file (functions, classes, methods, types) for lookups by name.
ALTER TABLE documents ADD COLUMN language TEXT;          -- code only: python, go, ... or text
ALTER TABLE chunks ADD COLUMN symbol TEXT;               -- code only: Class.method
ALTER TABLE chunks ADD COLUMN symbol_kind TEXT;          -- function, method, class, ...

CREATE TABLE symbols (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,                           -- qualified: Session.send
    short       TEXT NOT NULL,                           -- its last part: send
    kind        TEXT NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    signature   TEXT NOT NULL
);
CREATE INDEX symbols_by_short ON symbols (short COLLATE NOCASE);
CREATE INDEX symbols_by_document ON symbols (document_id);
