-- A table that existed before fencing was introduced, with data in it.
CREATE TABLE legacy_stock (
    id       BIGINT  NOT NULL,
    quantity INTEGER NOT NULL,
    CONSTRAINT legacy_stock_pk PRIMARY KEY (id)
);

INSERT INTO legacy_stock (id, quantity) VALUES (1, 100);
