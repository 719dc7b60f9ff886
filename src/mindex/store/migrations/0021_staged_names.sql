-- mindex schema v21: a large first index (`bulk_load`) puts the names each document calls and
-- defines here, in the order it writes them, and moves them into ref_names and symbol_names
-- in key order at its end. Inserted one document at a time, each name landed on a random page
-- of those tables, and every commit wrote each such page again: the writer's cost a chunk grew
-- with the index. Rows left by a run that was killed are moved when the index is next opened
-- for writing (each is a name a committed document holds: moving one early is harmless).
CREATE TABLE staged_names (
    defined     INTEGER NOT NULL,   -- 0: a name the document calls (ref_names), 1: a short name it defines (symbol_names)
    name        TEXT NOT NULL,
    document_id INTEGER NOT NULL
);
