-- mindex schema v20 (the version number SQLite indexes have; there, lists of the best chunks for
-- common words, because FTS5 scores every match of a word before it keeps the best). Here
-- nothing changes: this store ranks from its own document frequencies in Python.
SELECT 1;
