-- mindex schema v15: a document's references are one row, packed (mindex.store.base.pack_refs:
-- zlib of one JSON list per field, the enclosing definition's name spelled out), and
-- ref_names says which documents name which callee. A file repeats the same few names, so
-- the stdlib's references take 4.5 MB with their lookup instead of 26 MB as 353,000 rows, a
-- by-name index and ref_scopes. Existing references are converted in place. Symbols lose
-- their index by qualified name (3 MB on the stdlib): a lookup by name goes through the
-- index by short name, the name's last part.
CREATE TABLE refs_v15 (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    packed      BLOB NOT NULL               -- (kind, name, qualifier, alias, line, scope) lists
);
INSERT INTO refs_v15 (document_id, packed)
    SELECT r.document_id, mindex_pack_refs(r.n, r.kind, r.name, r.qualifier, r.alias, r.line, coalesce(s.name, ''))
    FROM refs r LEFT JOIN ref_scopes s ON s.document_id = r.document_id AND s.n = r.scope
    GROUP BY r.document_id;

CREATE TABLE ref_names (                    -- no foreign key: a document's rows go by name, read from refs
    name        TEXT NOT NULL,
    document_id INTEGER NOT NULL,
    PRIMARY KEY (name, document_id)
) WITHOUT ROWID;
INSERT INTO ref_names (name, document_id) SELECT DISTINCT name, document_id FROM refs;

DROP TABLE refs;
DROP TABLE ref_scopes;
ALTER TABLE refs_v15 RENAME TO refs;
DROP INDEX IF EXISTS symbols_by_name;
-- a bulk load killed before its end must not build either by-name index again
UPDATE schema_meta SET value = json_remove(value, '$.indexes.refs_by_name', '$.indexes.symbols_by_name')
    WHERE key = 'bulk_load_indexes';
