CREATE TABLE "select" (
  "id" integer PRIMARY KEY AUTOINCREMENT,
  "from" text NOT NULL,
  "where" integer,
  "order" real DEFAULT 1.5
);
CREATE TABLE "Order Lines" (
  "Line ID" integer PRIMARY KEY,
  "Select ID" integer NOT NULL REFERENCES "select" ("id"),
  "Unit Price" decimal(10, 2) NOT NULL DEFAULT 0,
  "Qty" integer NOT NULL DEFAULT 1
);
CREATE TABLE "café" (
  "id" integer PRIMARY KEY AUTOINCREMENT,
  "crème brûlée" text,
  "größe" integer,
  "名前" varchar(20)
);
CREATE TABLE "2fa codes" (
  "code" varchar(12) NOT NULL,
  "user" integer NOT NULL,
  "expires" datetime,
  PRIMARY KEY ("code", "user")
);
CREATE TABLE "MixedCase" (
  "ID" integer PRIMARY KEY AUTOINCREMENT,
  "camelCase" text,
  "PascalCase" text,
  "snake_case" text,
  "constructor" text,
  "__proto__" text
);
