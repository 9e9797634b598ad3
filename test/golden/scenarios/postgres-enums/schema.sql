CREATE TYPE order_status AS ENUM ('new', 'paid', 'shipped', 'cancelled');
CREATE TYPE "Priority" AS ENUM ('low', 'normal', 'high');
CREATE TABLE customer (
  id serial PRIMARY KEY,
  email varchar(255) NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE product (
  id bigserial PRIMARY KEY,
  sku varchar(32) NOT NULL UNIQUE,
  title text NOT NULL,
  price numeric(10, 2) NOT NULL,
  weight_kg real,
  tags text[],
  attributes jsonb,
  stock smallint NOT NULL DEFAULT 0
);
CREATE TABLE "order" (
  id serial PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customer (id),
  status order_status NOT NULL DEFAULT 'new',
  priority "Priority",
  placed_on date NOT NULL DEFAULT CURRENT_DATE,
  reference uuid NOT NULL
);
CREATE TABLE order_line (
  order_id integer NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
  product_id bigint NOT NULL REFERENCES product (id),
  quantity integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, product_id)
);
CREATE VIEW open_orders AS SELECT id, customer_id, status FROM "order" WHERE status IN ('new', 'paid');
CREATE SCHEMA audit;
CREATE TABLE audit.event (
  id bigserial PRIMARY KEY,
  happened_at timestamptz NOT NULL DEFAULT now(),
  actor text,
  status order_status,
  payload json
);
