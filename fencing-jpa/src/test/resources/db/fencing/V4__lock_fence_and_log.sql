-- The lock fence (fencedlock.jpa.lock-fence=true): one row per lock name, holding the newest token
-- that committed fenced writes under that lock. lock_name must compare exactly (no case folding,
-- no trailing-space padding): its type is VARCHAR(256) on H2 and PostgreSQL, and on MariaDB
-- VARCHAR(256) with a binary no-pad collation, since MariaDB's default collations fold case and pad.
-- The types come from Flyway placeholders set per database by TestDatabase.
CREATE TABLE fencedlock_fence (
    lock_name ${lock_name_type} NOT NULL,
    token     BIGINT NOT NULL,
    CONSTRAINT fencedlock_fence_pk PRIMARY KEY (lock_name)
);

-- A fenced table whose ids the database generates.
CREATE TABLE fenced_log (
    id      ${identity_column},
    message VARCHAR(64) NOT NULL,
    fence   BIGINT      NOT NULL DEFAULT 0,
    CONSTRAINT fenced_log_pk PRIMARY KEY (id)
);
