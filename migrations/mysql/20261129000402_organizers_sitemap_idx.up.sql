-- The sitemap lists the public records of each kind in children of a run
-- of ids (models/sitemap.go): each child is one range of this index
-- (status, then id), and the sitemap index finds each child that lists
-- something with one seek. One DDL statement: applied and marked together.
ALTER TABLE organizers ADD INDEX organizers_sitemap_idx (status, id);
