-- Fencing an existing table: add the fence column. Existing rows get 0, which is below every
-- token, so the first fenced write of each row succeeds and stamps it. The same statement runs on
-- H2, PostgreSQL (11+: a constant default adds the column without rewriting the table) and
-- MariaDB 10.3+ / MySQL 8.0.12+ (InnoDB adds it instantly).
ALTER TABLE legacy_stock ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
