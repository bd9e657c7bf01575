-- The lock table of the jdbc backend (dev.fencedlock:jdbc-provider). Portable SQL: H2, PostgreSQL, MariaDB.
--
-- lock_key is the lower-case hex SHA-256 of the lock name's UTF-8 bytes, not the name itself: a
-- fixed-length ASCII key compares the same under every collation, so names that differ only in
-- case, accents or trailing spaces (equal under MariaDB's default *_ci / PAD SPACE collations)
-- never share a row. lock_name is kept for people reading the table and checked on every grant.
--
-- holder is the current grant's random value (NULL when released), token the last token issued
-- for this name (kept across releases so tokens only grow), expires_at the end of the current
-- grant in milliseconds since the epoch by the database's clock.
CREATE TABLE fencedlock_lock (
    lock_key VARCHAR(64) NOT NULL,
    lock_name VARCHAR(256) NOT NULL,
    holder VARCHAR(64),
    token BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (lock_key)
);
