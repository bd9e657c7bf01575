-- Counters written with read-modify-write increments inside critical sections. A fenced counter is
-- written through fencing-jpa (the fence column is checked in the UPDATE itself); the unfenced
-- control counters of some scenarios are written with plain SQL and leave the fence alone.
CREATE TABLE fault_counter (
    name          VARCHAR(300) NOT NULL,
    counter_value BIGINT       NOT NULL,
    fence         BIGINT       NOT NULL DEFAULT 0,
    CONSTRAINT fault_counter_pk PRIMARY KEY (name)
);

-- The database's own record of every committed increment, inserted in the same transaction as the
-- increment: a row exists exactly when its increment committed, whatever the client saw. Nothing
-- here is unique but the id, so that a lost update (two increments from one value) stays visible.
-- The id type is TestDatabase's identity_column placeholder: it differs on MariaDB.
CREATE TABLE fault_counter_log (
    id            ${identity_column},
    counter_name  VARCHAR(300) NOT NULL,
    attempt       VARCHAR(200) NOT NULL,
    token         BIGINT       NOT NULL,
    counter_value BIGINT       NOT NULL,
    CONSTRAINT fault_counter_log_pk PRIMARY KEY (id)
);

CREATE INDEX fault_counter_log_counter ON fault_counter_log (counter_name);
