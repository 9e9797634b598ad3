CREATE TABLE contact (
  id integer PRIMARY KEY AUTOINCREMENT,
  first_name varchar(40) NOT NULL,
  last_name varchar(40) NOT NULL,
  image_url text,
  twitter varchar(18),
  skype varchar(255),
  notes text,
  is_favorite boolean NOT NULL DEFAULT 0,
  created_date timestamp DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE contact_group (
  id integer PRIMARY KEY AUTOINCREMENT,
  name varchar(128) NOT NULL UNIQUE
);
CREATE TABLE contact_group_relationship (
  id integer PRIMARY KEY AUTOINCREMENT,
  contact_id integer NOT NULL REFERENCES contact (id) ON DELETE CASCADE,
  contact_group_id integer NOT NULL REFERENCES contact_group (id) ON DELETE CASCADE
);
CREATE TABLE contact_info (
  id integer PRIMARY KEY AUTOINCREMENT,
  ordinal integer,
  contact_id integer NOT NULL REFERENCES contact (id) ON DELETE CASCADE,
  info_type varchar(32) NOT NULL,
  phone varchar(32),
  email varchar(255),
  address varchar(255),
  city varchar(64),
  state varchar(64),
  zip varchar(16),
  country varchar(64)
);
CREATE VIEW contact_with_info AS
  SELECT c.id, c.first_name, c.last_name, i.email FROM contact c LEFT JOIN contact_info i ON i.contact_id = c.id;
