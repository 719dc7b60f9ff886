-- mindex schema v11 on PostgreSQL: the same tables and columns as SQLite's v11, in one step
-- (the backend was born at v11; every later migration gets a twin with the same number).
-- Full text: a weighted tsvector per chunk (title A, context B, terms C, text D), words split
-- at every non-alphanumeric character as SQLite's unicode61 does; trigrams for grep; vectors
-- as halfvec with an HNSW index per model (created when the model is pinned).
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE IF NOT EXISTS schema_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE store_version (                -- bumped by every write transaction: readers reload vectors
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    n   BIGINT NOT NULL
);
INSERT INTO store_version VALUES (TRUE, 0);

CREATE TABLE sources (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT COLLATE "C" NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    root       TEXT NOT NULL,
    options    TEXT NOT NULL DEFAULT '{}',
    created_at DOUBLE PRECISION NOT NULL,
    indexed_at DOUBLE PRECISION
);

CREATE TABLE documents (
    id           BIGSERIAL PRIMARY KEY,
    source_id    BIGINT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    path         TEXT COLLATE "C" NOT NULL,
    kind         TEXT NOT NULL,
    title        TEXT NOT NULL DEFAULT '',
    size         BIGINT NOT NULL,
    mtime_ns     BIGINT NOT NULL,
    content_hash TEXT NOT NULL,
    metadata     TEXT NOT NULL DEFAULT '{}',
    indexed_at   DOUBLE PRECISION NOT NULL,
    language     TEXT,
    UNIQUE (source_id, path)
);

-- Path globs as mindex.pathglob reads them (`*` in a folder, `**` across, `?` one character; a
-- pattern without `/` also matches a base name; a trailing `/` means everything under it).
CREATE FUNCTION mindex_glob_re(pattern TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    out TEXT := '';
    i INT := 1;
    c TEXT;
BEGIN
    WHILE i <= length(pattern) LOOP
        IF substr(pattern, i, 3) = '**/' THEN
            out := out || '(?:.*/)?';
            i := i + 3;
        ELSIF substr(pattern, i, 2) = '**' THEN
            out := out || '.*';
            i := i + 2;
        ELSE
            c := substr(pattern, i, 1);
            out := out || CASE WHEN c = '*' THEN '[^/]*' WHEN c = '?' THEN '[^/]'
                               WHEN c ~ '^[A-Za-z0-9]$' OR ascii(c) > 127 THEN c ELSE '\' || c END;
            i := i + 1;
        END IF;
    END LOOP;
    RETURN '^' || out || '$';
END $$;

CREATE FUNCTION mindex_glob(pattern TEXT, path TEXT) RETURNS BOOLEAN LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    p TEXT := pattern;
    r TEXT;
BEGIN
    IF p IS NULL OR p = '' THEN RETURN TRUE; END IF;
    IF path IS NULL THEN RETURN FALSE; END IF;
    IF left(p, 2) = './' THEN p := substr(p, 3); END IF;
    IF right(p, 1) = '/' THEN p := p || '**'; END IF;
    r := mindex_glob_re(p);
    RETURN path ~ r OR (strpos(p, '/') = 0 AND regexp_replace(path, '^.*/', '') ~ r);
END $$;

-- English stems without a stopword list: SQLite's porter tokenizer keeps every word, and
-- `Text.on` or `is_set` must stay findable by all of their parts.
CREATE TEXT SEARCH DICTIONARY mindex_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION mindex (COPY = english);
ALTER TEXT SEARCH CONFIGURATION mindex ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword,
    hword_asciipart, hword_part, hword_numpart WITH mindex_stem;

CREATE FUNCTION mindex_words(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(coalesce(t, ''), '[^[:alnum:]]+', ' ', 'g');

-- Words in a field, as FTS5 counts a row's length for BM25.
CREATE FUNCTION mindex_length(t TEXT) RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN btrim(mindex_words(t)) = '' THEN 0
                ELSE array_length(regexp_split_to_array(btrim(mindex_words(t)), ' +'), 1) END;

CREATE TABLE chunks (
    seq         BIGSERIAL PRIMARY KEY,
    id          TEXT COLLATE "C" NOT NULL UNIQUE,
    document_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    title       TEXT NOT NULL,
    context     TEXT NOT NULL,
    text        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    start_line  INTEGER,
    end_line    INTEGER,
    page        INTEGER,
    symbol      TEXT,
    symbol_kind TEXT,
    terms       TEXT NOT NULL DEFAULT '',
    at          DOUBLE PRECISION,
    facets      TEXT,
    search      TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('mindex', mindex_words(title)), 'A') ||
        setweight(to_tsvector('mindex', mindex_words(context)), 'B') ||
        setweight(to_tsvector('mindex', mindex_words(terms)), 'C') ||
        setweight(to_tsvector('mindex', mindex_words(text)), 'D')) STORED,
    words       INTEGER GENERATED ALWAYS AS (mindex_length(title) + mindex_length(context) + mindex_length(terms)
                                         + mindex_length(text)) STORED  -- BM25's row length
);
-- The tsvector stays in the row, compressed (not in TOAST): a keyword search reads it several
-- times per match (loc set: 329 -> 177 ms a query).
ALTER TABLE chunks ALTER COLUMN search SET STORAGE MAIN;
CREATE INDEX chunks_by_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_by_hash ON chunks (hash);
CREATE INDEX chunks_search ON chunks USING gin (search);

CREATE TABLE skipped_files (
    source_id BIGINT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    path      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    PRIMARY KEY (source_id, path)
);

CREATE TABLE vectors (
    model     TEXT NOT NULL,
    hash      TEXT NOT NULL,
    embedding HALFVEC,                      -- NULL: a chunk that needs no vector (imports only)
    PRIMARY KEY (model, hash)
);

CREATE TABLE chunk_contexts (
    model   TEXT NOT NULL,
    hash    TEXT NOT NULL,
    context TEXT NOT NULL,
    PRIMARY KEY (model, hash)
);

CREATE TABLE symbols (
    id          BIGSERIAL PRIMARY KEY,
    document_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    name        TEXT COLLATE "C" NOT NULL,
    short       TEXT COLLATE "C" NOT NULL,
    kind        TEXT NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    signature   TEXT NOT NULL,
    exported    INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX symbols_by_short ON symbols (lower(short));
CREATE INDEX symbols_by_short_exact ON symbols (short);
CREATE INDEX symbols_by_document ON symbols (document_id);
CREATE INDEX symbols_by_name ON symbols (name);

CREATE TABLE code_text (
    document_id BIGINT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text        TEXT NOT NULL               -- TOAST compresses it; the trigram index finds grep's candidate files
);
CREATE INDEX code_text_trigrams ON code_text USING gin (text gin_trgm_ops);

CREATE TABLE refs (
    document_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    qualifier   TEXT NOT NULL DEFAULT '',
    alias       TEXT NOT NULL DEFAULT '',
    line        INTEGER NOT NULL,
    scope       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (document_id, n)
);
CREATE INDEX refs_by_name ON refs (name, kind);

CREATE TABLE chunk_facets (
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    seq   BIGINT NOT NULL REFERENCES chunks(seq) ON DELETE CASCADE,
    PRIMARY KEY (name, value, seq)
);
CREATE INDEX chunk_facets_by_seq ON chunk_facets (seq);

CREATE TABLE kg_entities (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    confidence  DOUBLE PRECISION,
    at          DOUBLE PRECISION,
    path        TEXT
);
CREATE TABLE kg_relations (
    src TEXT NOT NULL,
    rel TEXT NOT NULL,
    dst TEXT NOT NULL,
    PRIMARY KEY (src, rel, dst)
);
CREATE INDEX kg_relations_by_dst ON kg_relations (dst, rel);

CREATE TABLE workflows (
    id          TEXT PRIMARY KEY,
    issue       BIGINT NOT NULL,
    branch      TEXT NOT NULL,
    worktree    TEXT,
    phase       TEXT NOT NULL,
    status      TEXT NOT NULL,
    retries     INTEGER NOT NULL DEFAULT 0,
    created_at  DOUBLE PRECISION NOT NULL,
    updated_at  DOUBLE PRECISION NOT NULL
);
CREATE INDEX workflows_by_issue ON workflows (issue, updated_at);
CREATE INDEX workflows_by_branch ON workflows (branch, updated_at);

CREATE TABLE workflow_actions (
    id          BIGSERIAL PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    action      TEXT NOT NULL,
    result      TEXT NOT NULL,
    metadata    TEXT,
    at          DOUBLE PRECISION NOT NULL
);
CREATE INDEX workflow_actions_by_workflow ON workflow_actions (workflow_id, id);

CREATE TABLE workflow_commits (
    id          BIGSERIAL PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    sha         TEXT NOT NULL,
    message     TEXT NOT NULL,
    at          DOUBLE PRECISION NOT NULL,
    UNIQUE (workflow_id, sha)
);

CREATE TABLE milestones (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    number      BIGINT,
    phase       TEXT NOT NULL,
    status      TEXT NOT NULL,
    waves       INTEGER NOT NULL DEFAULT 1,
    created_at  DOUBLE PRECISION NOT NULL,
    updated_at  DOUBLE PRECISION NOT NULL
);

CREATE TABLE milestone_issues (
    milestone_id TEXT NOT NULL REFERENCES milestones (id) ON DELETE CASCADE,
    issue        BIGINT NOT NULL,
    wave         INTEGER NOT NULL,
    workflow_id  TEXT REFERENCES workflows (id) ON DELETE SET NULL,
    PRIMARY KEY (milestone_id, issue)
);

CREATE TABLE baselines (
    id           BIGSERIAL PRIMARY KEY,
    milestone_id TEXT NOT NULL REFERENCES milestones (id) ON DELETE CASCADE,
    check_name   TEXT NOT NULL,
    command      TEXT NOT NULL,
    tool         TEXT,
    exit_code    INTEGER,
    errors       INTEGER,
    warnings     INTEGER,
    lines        INTEGER NOT NULL,
    seconds      DOUBLE PRECISION NOT NULL,
    at           DOUBLE PRECISION NOT NULL
);
CREATE INDEX baselines_by_milestone ON baselines (milestone_id, at);

CREATE TABLE agent_sessions (
    session_id  TEXT PRIMARY KEY,
    cwd         TEXT,
    branch      TEXT,
    issue       BIGINT,
    workflow_id TEXT,
    started_at  DOUBLE PRECISION NOT NULL,
    head        TEXT,
    files_read  INTEGER NOT NULL DEFAULT 0,
    compacted   INTEGER NOT NULL DEFAULT 0,
    injected    INTEGER NOT NULL DEFAULT 0,
    captured    INTEGER NOT NULL DEFAULT 0,
    handoff     TEXT,
    ended_at    DOUBLE PRECISION
);

CREATE TABLE captured_commits (
    sha         TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    at          DOUBLE PRECISION NOT NULL
);

CREATE TABLE query_log (
    id          BIGSERIAL PRIMARY KEY,
    session_id  TEXT,
    kind        TEXT NOT NULL,
    params      TEXT NOT NULL,
    results     INTEGER NOT NULL,
    ms          DOUBLE PRECISION NOT NULL,
    at          DOUBLE PRECISION NOT NULL
);

CREATE TABLE fetch_markers (
    product     TEXT PRIMARY KEY,
    strategy    TEXT NOT NULL,
    newest      TEXT,
    etag        TEXT,
    fetched_at  DOUBLE PRECISION NOT NULL,
    status      TEXT NOT NULL,
    detail      TEXT
);

CREATE TABLE synergies (
    name        TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    products    TEXT NOT NULL,
    steps       TEXT NOT NULL,
    evidence    TEXT NOT NULL,
    body        TEXT NOT NULL,
    path        TEXT NOT NULL,
    cached_at   DOUBLE PRECISION NOT NULL
);
