-- mindex schema v16: a file skipped for its bytes keeps the size and mtime it had (see the
-- SQLite twin).
ALTER TABLE skipped_files ADD COLUMN size BIGINT, ADD COLUMN mtime_ns BIGINT;
