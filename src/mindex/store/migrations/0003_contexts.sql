-- mindex schema v3: LLM-written context per chunk (optional), cached by chunk hash and the
-- model that wrote it, so a chunk is described once and never again while it is unchanged.
CREATE TABLE chunk_contexts (
    model   TEXT NOT NULL,   -- the writer's identity, e.g. llm-context:gpt-4o-mini
    hash    TEXT NOT NULL,   -- chunks.hash
    context TEXT NOT NULL,   -- one or two sentences situating the chunk in its document
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
