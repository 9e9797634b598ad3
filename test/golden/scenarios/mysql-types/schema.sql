CREATE TABLE warehouse (
  id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
  code char(4) NOT NULL UNIQUE,
  name varchar(100) NOT NULL,
  opened year,
  is_open tinyint(1) NOT NULL DEFAULT 1
);
CREATE TABLE item (
  id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
  warehouse_id int unsigned NOT NULL,
  size enum('S','M','L','XL') NOT NULL DEFAULT 'M',
  flags set('fragile','cold','heavy'),
  price decimal(12, 4) NOT NULL,
  ratio double,
  score float,
  counter mediumint,
  tiny tinyint,
  notes mediumtext,
  picture blob,
  checksum binary(16),
  created datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated timestamp NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
  bought date,
  at_time time,
  doc json,
  CONSTRAINT fk_item_warehouse FOREIGN KEY (warehouse_id) REFERENCES warehouse (id) ON DELETE RESTRICT
);
