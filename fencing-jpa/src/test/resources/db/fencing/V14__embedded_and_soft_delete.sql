-- A fenced entity with an embedded value that holds an element collection and a unidirectional
-- one-to-many by join column, the child of that one-to-many, and a fenced
-- entity removed by soft delete.
CREATE TABLE crate (
    id      BIGINT NOT NULL,
    label   VARCHAR(64),
    version BIGINT NOT NULL DEFAULT 0,
    fence   BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT crate_pk PRIMARY KEY (id)
);

CREATE TABLE crate_part (
    crate_id BIGINT      NOT NULL,
    part     VARCHAR(64) NOT NULL
);

CREATE TABLE pen (
    id       BIGINT      NOT NULL,
    name     VARCHAR(64) NOT NULL,
    crate_id BIGINT,
    CONSTRAINT pen_pk PRIMARY KEY (id)
);

CREATE TABLE soft_item (
    id       BIGINT  NOT NULL,
    quantity INTEGER NOT NULL,
    version  BIGINT  NOT NULL DEFAULT 0,
    fence    BIGINT  NOT NULL DEFAULT 0,
    deleted  BOOLEAN NOT NULL DEFAULT FALSE,
    CONSTRAINT soft_item_pk PRIMARY KEY (id)
);
