-- mindex schema v11: changelog knowledge. Changes are chunks of the `changelog` source kind
-- (facets product, entity, vkey in chunk_facets); these tables hold what is not a chunk.
CREATE TABLE fetch_markers (                -- per product: where the last fetch stopped
    product     TEXT PRIMARY KEY,
    strategy    TEXT NOT NULL,
    newest      TEXT,                       -- the newest release date (ISO) or version seen
    etag        TEXT,                       -- the validator of the last full answer (If-None-Match)
    fetched_at  REAL NOT NULL,
    status      TEXT NOT NULL,              -- new, unchanged, failed
    detail      TEXT                        -- the failure's reason, or what was new
);

CREATE TABLE synergies (                    -- cache of the synergy files, rebuilt by ingest
    name        TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    products    TEXT NOT NULL,              -- JSON list
    steps       TEXT NOT NULL,              -- JSON list
    evidence    TEXT NOT NULL,              -- JSON list of change ids
    body        TEXT NOT NULL,
    path        TEXT NOT NULL,
    cached_at   REAL NOT NULL
);
