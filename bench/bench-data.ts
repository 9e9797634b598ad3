/**
 * The benchmark's data: 10,000 `customers` and 100,000 `orders` (each order references a
 * customer), created in a SQLite file or a PostgreSQL database.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export const CUSTOMERS = 10_000;
export const ORDERS = 100_000;
export const STATUSES = ['new', 'paid', 'shipped', 'delivered', 'cancelled'];

export function createSqliteData(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    create table customers (id integer primary key autoincrement, name varchar(100) not null, email varchar(255) not null, city varchar(60));
    create table orders (id integer primary key autoincrement, customer_id integer not null references customers(id),
      status varchar(20) not null, total double not null, note text, created_at datetime not null default current_timestamp);
    create index orders_customer_id on orders (customer_id);`);
  const customer = db.prepare('insert into customers (name, email, city) values (?, ?, ?)');
  const order = db.prepare('insert into orders (customer_id, status, total, note) values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= CUSTOMERS; i++) customer.run(`Customer ${i}`, `customer${i}@example.com`, `City ${i % 100}`);
    for (let i = 1; i <= ORDERS; i++) order.run(1 + ((i * 7919) % CUSTOMERS), STATUSES[i % STATUSES.length], (i % 1000) / 4, `order ${i}`);
  })();
  db.close();
}

/** Fills the (empty) database at `url`; its sessions commit without waiting for the disk, as the measurements did. */
export async function createPostgresData(url: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`alter database "${database}" set synchronous_commit = off`);
    await client.query(`
      create table customers (id serial primary key, name varchar(100) not null, email varchar(255) not null, city varchar(60));
      create table orders (id serial primary key, customer_id integer not null references customers(id),
        status varchar(20) not null, total double precision not null, note text, created_at timestamp not null default current_timestamp);
      insert into customers (name, email, city) select 'Customer ' || i, 'customer' || i || '@example.com', 'City ' || (i % 100)
        from generate_series(1, ${CUSTOMERS}) i;
      insert into orders (customer_id, status, total, note)
        select 1 + (i * 7919) % ${CUSTOMERS}, (array['${STATUSES.join("','")}'])[1 + i % ${STATUSES.length}], (i % 1000) / 4.0, 'order ' || i
        from generate_series(1, ${ORDERS}) i;
      create index orders_customer_id on orders (customer_id);`);
    await client.query('vacuum analyze customers');
    await client.query('vacuum analyze orders');
  } finally {
    await client.end();
  }
}
