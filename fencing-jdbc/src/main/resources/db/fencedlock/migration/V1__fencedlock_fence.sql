-- The fence row of fencedlock-jdbc: one row per lock name, holding the newest fencing token a
-- fenced transaction of that lock has registered. Portable SQL: the same file runs on H2,
-- PostgreSQL and MariaDB/MySQL. On MariaDB/MySQL the column takes the database's default
-- collation; if that is case-insensitive or pads trailing spaces, two names that differ only so
-- are refused with an error instead of sharing a row. To make every name usable, give lock_name a
-- binary no-pad collation (see docs/fencing.md), e.g. on MariaDB:
--   ALTER TABLE fencedlock_fence MODIFY lock_name VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL;
CREATE TABLE fencedlock_fence (
    lock_name VARCHAR(256) NOT NULL,
    token BIGINT NOT NULL,
    PRIMARY KEY (lock_name)
);
