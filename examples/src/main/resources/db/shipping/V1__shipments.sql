-- The shipping service's own table, in its own database: one row per order shipped. An order is
-- named by its SKU and the token of the lease that sold it, as the inventory's orders table holds
-- them. presented_token is the token the call presented in its Fencing-Token header: the sale's own,
-- or a later lease's when the order was shipped again under a new lease.
CREATE TABLE shipments (
    sku             VARCHAR(64) NOT NULL,
    order_token     BIGINT      NOT NULL,
    presented_token BIGINT      NOT NULL,
    shipped_at      TIMESTAMP   NOT NULL,
    PRIMARY KEY (sku, order_token)
);
