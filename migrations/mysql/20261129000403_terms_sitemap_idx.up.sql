-- The sitemap lists the categories and the tags in children of a run of
-- ids (models/sitemap.go): each child is one range of this index
-- (taxonomy, then id), and the sitemap index finds each child that lists
-- something with one seek. One DDL statement: applied and marked together.
ALTER TABLE terms ADD INDEX terms_sitemap_idx (taxonomy, id);
