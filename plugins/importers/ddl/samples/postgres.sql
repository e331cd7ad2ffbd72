-- Order entry database of a small shop (PostgreSQL).
-- Unqualified names live in the default schema `public`; the orders in `sales`.

CREATE EXTENSION IF NOT EXISTS "uuid-ossp";
SET client_encoding = 'UTF8';

CREATE SCHEMA sales;

CREATE TABLE customers (
    id          serial PRIMARY KEY,
    email       varchar(254) NOT NULL UNIQUE,
    full_name   varchar(200) NOT NULL,
    created_at  timestamp with time zone NOT NULL DEFAULT now(),
    region_code char(2)
);

CREATE TABLE addresses (
    customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    kind        text NOT NULL DEFAULT 'billing',
    street      varchar(200),
    city        varchar(80) NOT NULL,
    CONSTRAINT addresses_pk PRIMARY KEY (customer_id, kind)
);

CREATE TABLE audit_log (
    id          bigserial PRIMARY KEY,
    "EventType" varchar(40) NOT NULL,
    payload     jsonb,
    logged_at   timestamptz DEFAULT now()
);

CREATE TABLE sales.products (
    sku         varchar(32) PRIMARY KEY,
    name        text NOT NULL,
    unit_price  numeric(10, 2) NOT NULL CHECK (unit_price >= 0),
    active      boolean NOT NULL DEFAULT true
);

CREATE TABLE sales.orders (
    id          bigint GENERATED ALWAYS AS IDENTITY,
    customer_id integer NOT NULL,
    status      varchar(20) NOT NULL DEFAULT 'open',
    ordered_at  timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    note        text,
    CONSTRAINT orders_pkey PRIMARY KEY (id),
    CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES public.customers (id)
);

CREATE TABLE sales.order_items (
    order_id    bigint NOT NULL REFERENCES sales.orders ON DELETE CASCADE,
    line_no     smallint NOT NULL,
    sku         varchar(32) NOT NULL,
    quantity    integer NOT NULL DEFAULT 1,
    unit_price  numeric(10, 2) NOT NULL,
    PRIMARY KEY (order_id, line_no)
);

CREATE TABLE Sales.Shipments (
    id          uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
    order_id    bigint NOT NULL,
    carrier     text,
    shipped_at  date
);

ALTER TABLE sales.order_items
    ADD CONSTRAINT order_items_sku_fkey FOREIGN KEY (sku) REFERENCES sales.products (sku);
ALTER TABLE ONLY sales.shipments
    ADD CONSTRAINT shipments_order_fk FOREIGN KEY (order_id) REFERENCES sales.orders (id);
-- The carriers are kept in another database.
ALTER TABLE sales.shipments
    ADD CONSTRAINT shipments_carrier_fk FOREIGN KEY (carrier) REFERENCES logistics.carriers (code);
ALTER TABLE sales.orders OWNER TO shop;

CREATE INDEX orders_customer_idx ON sales.orders (customer_id, ordered_at DESC);
CREATE UNIQUE INDEX ON customers (lower(email));

CREATE VIEW sales.order_totals AS
SELECT o.id AS order_id, c.full_name AS customer, sum(i.quantity * i.unit_price) AS total, o.status
FROM sales.orders o
JOIN customers c ON c.id = o.customer_id
JOIN sales.order_items i ON i.order_id = o.id
GROUP BY o.id, c.full_name, o.status;

CREATE FUNCTION sales.touch_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.ordered_at := now();
    RETURN NEW;
END
$$;

COMMENT ON SCHEMA sales IS 'Orders and what is on them.';
COMMENT ON TABLE customers IS 'One row per customer who placed at least one order.';
COMMENT ON COLUMN customers.email IS 'Contact e-mail address, as entered by the customer.';
COMMENT ON COLUMN sales.orders.status IS 'One of open, shipped, cancelled.';
COMMENT ON VIEW sales.order_totals IS 'The value of each order.';
COMMENT ON INDEX sales.orders_customer_idx IS 'Orders of a customer, newest first.';

GRANT USAGE ON SCHEMA sales TO reporting;
GRANT SELECT ON sales.orders, sales.order_items TO reporting;
INSERT INTO sales.products (sku, name, unit_price) VALUES ('A-1', 'Widget', 9.99), ('B-2', 'Gadget', 19.50);
INSERT INTO customers (email, full_name) VALUES ('ada@example.com', 'Ada Lovelace');
