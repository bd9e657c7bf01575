-- A fenced table: the fence column holds the token of the lease that last wrote the row, the
-- version column changes on every write. Neither needs an index of its own: every fenced
-- UPDATE/DELETE finds the row by primary key and only then compares them. Versions 11+ so that
-- these scripts sort after fencing-jdbc's fence-row migration (V1) in one Flyway history.
CREATE TABLE fenced_item (
    id       BIGINT      NOT NULL,
    sku      VARCHAR(64) NOT NULL,
    quantity INTEGER     NOT NULL,
    version  BIGINT      NOT NULL DEFAULT 0,
    fence    BIGINT      NOT NULL DEFAULT 0,
    CONSTRAINT fenced_item_pk PRIMARY KEY (id)
);

-- Collection tables of the fenced item: an element collection, a many-to-many join table and the
-- join table of a unidirectional one-to-many.
CREATE TABLE item_tag (
    item_id BIGINT      NOT NULL,
    tag     VARCHAR(64) NOT NULL
);

CREATE TABLE label (
    id   BIGINT      NOT NULL,
    name VARCHAR(64) NOT NULL,
    CONSTRAINT label_pk PRIMARY KEY (id)
);

CREATE TABLE item_label (
    item_id  BIGINT NOT NULL,
    label_id BIGINT NOT NULL
);

CREATE TABLE note (
    id   BIGINT      NOT NULL,
    text VARCHAR(64) NOT NULL,
    CONSTRAINT note_pk PRIMARY KEY (id)
);

CREATE TABLE item_note (
    item_id BIGINT NOT NULL,
    note_id BIGINT NOT NULL
);

-- An unfenced entity whose cascade reaches a fenced one.
CREATE TABLE shelf (
    id      BIGINT NOT NULL,
    item_id BIGINT,
    CONSTRAINT shelf_pk PRIMARY KEY (id)
);

-- A fenced table whose ids the database generates.
CREATE TABLE fenced_log (
    id      ${identity_column},
    message VARCHAR(64) NOT NULL,
    version BIGINT      NOT NULL DEFAULT 0,
    fence   BIGINT      NOT NULL DEFAULT 0,
    CONSTRAINT fenced_log_pk PRIMARY KEY (id)
);
