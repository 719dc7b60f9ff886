-- mindex schema v18: a document's definitions are one row, packed (mindex.store.base.
-- pack_symbols, the way references are since v15), and symbol_names says which documents
-- define which short name (without case for ASCII letters; a lookup compares the names
-- exactly after). The stdlib's 75,000 definitions took 9.8 MB as rows with their indexes by
-- short name and by document, 3.3 MB so. A code chunk's symbol is its title: chunks.symbol
-- held it a second time (2.6 MB) and is dropped. Existing rows are converted in place.
CREATE TABLE symbols_v18 (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    packed      BLOB NOT NULL               -- (name, kind, start, end, signature, exported) lists
);
INSERT INTO symbols_v18 (document_id, packed)
    SELECT document_id, mindex_pack_symbols(id, name, kind, start_line, end_line, signature, exported)
    FROM symbols GROUP BY document_id;

CREATE TABLE symbol_names (                 -- no foreign key: a document's rows go by name, read from symbols
    short       TEXT NOT NULL COLLATE NOCASE,
    document_id INTEGER NOT NULL,
    PRIMARY KEY (short, document_id)
) WITHOUT ROWID;
-- of names that differ only in case, the first in code point order is kept (as the writer does)
INSERT OR IGNORE INTO symbol_names (short, document_id) SELECT short, document_id FROM symbols
    ORDER BY document_id, short COLLATE BINARY;

DROP TABLE symbols;
ALTER TABLE symbols_v18 RENAME TO symbols;
ALTER TABLE chunks DROP COLUMN symbol;
-- a bulk load killed before its end must not build the dropped indexes again
UPDATE schema_meta SET value = json_remove(value, '$.indexes.symbols_by_short', '$.indexes.symbols_by_document')
    WHERE key = 'bulk_load_indexes';
