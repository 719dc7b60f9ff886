-- mindex schema v9: memory and knowledge. A chunk may carry a time (`at`, epoch seconds: a
-- memory entry's or a knowledge entity's, used by filters and recency decay in place of the
-- file's mtime) and facets (JSON: id, type, tags, files, ...). The facets a search filters
-- on are also rows of chunk_facets, so a filter is an indexed lookup applied before top-k.
ALTER TABLE chunks ADD COLUMN at REAL;
ALTER TABLE chunks ADD COLUMN facets TEXT;

CREATE TABLE chunk_facets (
    name  TEXT NOT NULL,      -- id, type, tag, file, area, issue
    value TEXT NOT NULL,
    seq   INTEGER NOT NULL,   -- chunks.seq
    PRIMARY KEY (name, value, seq)
) WITHOUT ROWID;
CREATE INDEX chunk_facets_by_seq ON chunk_facets (seq);

CREATE TRIGGER chunks_facets_after_delete AFTER DELETE ON chunks WHEN old.facets IS NOT NULL BEGIN
    DELETE FROM chunk_facets WHERE seq = old.seq;
END;

-- The knowledge graph, derived from the knowledge files' front matter (rebuilt with them).
-- Entities: learning, pattern, mistake, topic (from files) and CodeArea, File (implied by
-- the areas and files the entities name: ids `area:<name>`, `file:<path>`).
CREATE TABLE kg_entities (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    confidence  REAL,
    at          REAL,
    path        TEXT              -- the entity's file, relative to the knowledge folder
);
CREATE TABLE kg_relations (
    src TEXT NOT NULL,
    rel TEXT NOT NULL,            -- ABOUT, IN_FILE, IN_AREA, LED_TO, APPLIES_TO, SUPERSEDES, ...
    dst TEXT NOT NULL,
    PRIMARY KEY (src, rel, dst)
) WITHOUT ROWID;
CREATE INDEX kg_relations_by_dst ON kg_relations (dst, rel);
