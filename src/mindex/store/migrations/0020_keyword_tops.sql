-- mindex schema v20: the best chunks for each word or name in 20,000 chunks or more (store/sqlite/tops.py),
-- made at the end of an index run, so that a search for one common word reads a list instead of
-- scoring every chunk that holds it. What they were made from is schema_meta's 'keyword_tops'.
CREATE TABLE keyword_tops (
    term     TEXT PRIMARY KEY,   -- the tokens of each phrase, "|" between phrases (`tops.list_key`)
    holding  TEXT NOT NULL,      -- how many chunks held each of its phrases then (a JSON list)
    bound    REAL NOT NULL,      -- the last listed chunk's BM25 (0: every chunk holding it listed)
    entries  BLOB NOT NULL       -- (seq, length in tokens, each phrase's weighted count) a chunk, best first, int64 little-endian
);
