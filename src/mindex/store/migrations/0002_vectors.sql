-- mindex schema v2: embedding vectors, keyed by chunk hash so identical texts are embedded
-- once and unchanged chunks are never embedded again. The model they belong to is pinned in
-- schema_meta (embed_model, embed_dim).
CREATE TABLE vectors (
    model  TEXT NOT NULL,   -- embedder identity, e.g. onnx:all-MiniLM-L6-v2
    hash   TEXT NOT NULL,   -- chunks.hash
    vector BLOB NOT NULL,   -- float16, little-endian, embed_dim values
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
