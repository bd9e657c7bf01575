-- Fencing an existing table: add the fence column and, if the entity has none, a version column.
-- Existing rows get 0, which is below every token, so the first fenced write of each row succeeds
-- and stamps it. The same statements run on H2, PostgreSQL (11+: a constant default adds the
-- column without rewriting the table) and MariaDB 10.3+ / MySQL 8.0.12+ (InnoDB adds it
-- instantly). The fence row table comes from fencing-jdbc's migration (classpath:db/fencedlock/migration).
ALTER TABLE legacy_stock ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
ALTER TABLE legacy_stock ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
