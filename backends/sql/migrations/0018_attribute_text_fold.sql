-- Attribute text as MQL compares it: folded ({fold}, migration 3). The index of
-- migration 2 held the text as written, which no MQL test could use (every text
-- comparison folds), so `"Data Owner" = 'team-3'` read every value of the attribute.
-- Like it, this one holds the first 256 characters only, so an entry stays small for a
-- long view statement; the compiler adds the same test on the prefix, and the whole
-- value is still compared.
DROP INDEX attribute_values_text;
CREATE INDEX attribute_values_text_fold ON attribute_values (attribute, {fold}(substr(text_value, 1, 256)))
    WHERE text_value IS NOT NULL;
