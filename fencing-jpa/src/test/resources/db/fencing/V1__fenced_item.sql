-- A fenced table: the fence column holds the token of the lease that last wrote the row.
-- It needs no index of its own: every fenced UPDATE/DELETE finds the row by primary key and only
-- then compares the fence.
CREATE TABLE fenced_item (
    id       BIGINT      NOT NULL,
    sku      VARCHAR(64) NOT NULL,
    quantity INTEGER     NOT NULL,
    fence    BIGINT      NOT NULL DEFAULT 0,
    CONSTRAINT fenced_item_pk PRIMARY KEY (id)
);

-- A fenced table whose entity also has its own optimistic-locking version.
CREATE TABLE versioned_item (
    id       BIGINT  NOT NULL,
    quantity INTEGER NOT NULL,
    version  BIGINT  NOT NULL,
    fence    BIGINT  NOT NULL DEFAULT 0,
    CONSTRAINT versioned_item_pk PRIMARY KEY (id)
);
