-- mindex schema v14: grep's trigram index is built by the first grep, not by indexing (a
-- fifth of a first index's CPU, for a feature some never use). schema_meta 'trigrams' says
-- it is built: then it holds every stored code text and indexing keeps it so; without the
-- key it holds none. An index that already has code texts has it built.
INSERT OR REPLACE INTO schema_meta SELECT 'trigrams', 'ready' WHERE EXISTS (SELECT 1 FROM code_text);

DROP TRIGGER code_text_after_delete;
CREATE TRIGGER code_text_after_delete AFTER DELETE ON code_text
WHEN EXISTS (SELECT 1 FROM schema_meta WHERE key = 'trigrams') BEGIN
    INSERT INTO code_trigrams (code_trigrams, rowid, text)
    VALUES ('delete', old.document_id, mindex_inflate(old.packed));
END;
