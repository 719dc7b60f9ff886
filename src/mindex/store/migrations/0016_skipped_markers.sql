-- mindex schema v16: a file skipped for its bytes (empty, binary, generated, minified) keeps
-- the size and mtime it had, so the next run skips it again without reading it while they
-- are unchanged. NULL for other reasons (and for rows written before: read once more).
ALTER TABLE skipped_files ADD COLUMN size INTEGER;
ALTER TABLE skipped_files ADD COLUMN mtime_ns INTEGER;
