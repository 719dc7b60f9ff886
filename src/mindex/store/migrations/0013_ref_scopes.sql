-- mindex schema v13: a reference names the definition it sits in by a number, not by the
-- definition's qualified name repeated on each of its calls (a third of the references'
-- bytes). ref_scopes holds each document's names once; refs.scope is that number, 0 at
-- module level. Existing references are converted in place.
CREATE TABLE ref_scopes (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,           -- 1, 2, ... in the order the document's references name them
    name        TEXT NOT NULL,              -- the enclosing definition's qualified name
    PRIMARY KEY (document_id, n)
) WITHOUT ROWID;

INSERT INTO ref_scopes (document_id, n, name)
    SELECT document_id, row_number() OVER (PARTITION BY document_id ORDER BY first), scope
    FROM (SELECT document_id, scope, min(n) AS first FROM refs WHERE scope <> '' GROUP BY document_id, scope);

CREATE TABLE refs_v13 (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    qualifier   TEXT NOT NULL DEFAULT '',
    alias       TEXT NOT NULL DEFAULT '',
    line        INTEGER NOT NULL,
    scope       INTEGER NOT NULL DEFAULT 0,  -- ref_scopes.n of the enclosing definition, 0 = module level
    PRIMARY KEY (document_id, n)
) WITHOUT ROWID;
INSERT INTO refs_v13 (document_id, n, kind, name, qualifier, alias, line, scope)
    SELECT r.document_id, r.n, r.kind, r.name, r.qualifier, r.alias, r.line, coalesce(s.n, 0)
    FROM refs r LEFT JOIN ref_scopes s ON s.document_id = r.document_id AND s.name = r.scope;
DROP TABLE refs;
ALTER TABLE refs_v13 RENAME TO refs;
CREATE INDEX refs_by_name ON refs (name, kind);
