-- tpcc.procs: the five transactions as stored procedures (--procedures): PL/pgSQL functions on
-- PostgreSQL, SQL procedures on MariaDB/MySQL. The logic is the one of tpcc.txn (same inputs,
-- same statements, same rules); a transaction is one call, one round trip instead of about
-- thirty. A PostgreSQL function runs as its statement's transaction (autocommit), NewOrder's work
-- inside a subtransaction that its unused item number rolls back; a MySQL procedure starts and
-- ends its own transaction. Deadlocks and serialization failures abort the call as a whole and
-- are retried by the terminal.
local bit = require("bit")
local common = require("tpcc.common")

local M = {}

local fmt = string.format
local concat = table.concat

-- District-dependent stock column, as an SQL expression.
local DIST = "CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 " ..
  "WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 " ..
  "WHEN 9 THEN s_dist_09 ELSE s_dist_10 END"

local PG = {
  new_order = [[
CREATE OR REPLACE FUNCTION {P}tpcc_new_order(p_w INT, p_d INT, p_c INT, p_all_local INT,
  p_items TEXT, p_supply TEXT, p_qty TEXT, p_number TEXT) RETURNS INT AS $$
DECLARE
  items INT[] := string_to_array(p_items, ',')::INT[];
  supply INT[] := string_to_array(p_supply, ',')::INT[];
  qty INT[] := string_to_array(p_qty, ',')::INT[];
  num INT[] := string_to_array(p_number, ',')::INT[];
  n INT := array_length(items, 1);
  v_discount DECIMAL(4,4); v_last VARCHAR(16); v_credit CHAR(2); v_w_tax DECIMAL(4,4);
  v_d_tax DECIMAL(4,4); v_o_id INT; v_price DECIMAL(5,2); v_name VARCHAR(24); v_i_data VARCHAR(50);
  v_s_qty INT; v_s_data VARCHAR(50); v_dist CHAR(24);
BEGIN
  -- The block is a subtransaction: raising TPC01 undoes everything it did.
  BEGIN
    SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_w_tax
      FROM {customer}, {warehouse} WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
    SELECT d_next_o_id, d_tax INTO v_o_id, v_d_tax FROM {district} WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
    UPDATE {district} SET d_next_o_id = v_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
    INSERT INTO {orders} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
      VALUES (v_o_id, p_d, p_w, p_c, CURRENT_TIMESTAMP, NULL, n, p_all_local);
    INSERT INTO {new_order} (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    FOR i IN 1..n LOOP
      SELECT i_price, i_name, i_data INTO v_price, v_name, v_i_data FROM {item} WHERE i_id = items[i];
      IF NOT FOUND THEN
        RAISE SQLSTATE 'TPC01'; -- unused item number: the whole transaction rolls back
      END IF;
      SELECT s_quantity, s_data, {DIST} INTO v_s_qty, v_s_data, v_dist
        FROM {stock} WHERE s_i_id = items[i] AND s_w_id = supply[i] FOR UPDATE;
      IF v_s_qty >= qty[i] + 10 THEN
        v_s_qty := v_s_qty - qty[i];
      ELSE
        v_s_qty := v_s_qty - qty[i] + 91;
      END IF;
      UPDATE {stock} SET s_quantity = v_s_qty, s_ytd = s_ytd + qty[i], s_order_cnt = s_order_cnt + 1,
          s_remote_cnt = s_remote_cnt + CASE WHEN supply[i] <> p_w THEN 1 ELSE 0 END
        WHERE s_i_id = items[i] AND s_w_id = supply[i];
      INSERT INTO {order_line} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
          ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d, p_w, num[i], items[i], supply[i], NULL, qty[i], qty[i] * v_price, v_dist);
    END LOOP;
    RETURN v_o_id;
  EXCEPTION WHEN SQLSTATE 'TPC01' THEN
    RETURN -1;
  END;
END $$ LANGUAGE plpgsql]],

  payment = [[
CREATE OR REPLACE FUNCTION {P}tpcc_payment(p_w INT, p_d INT, p_c_w INT, p_c_d INT, p_c_id INT,
  p_c_last TEXT, p_cents INT) RETURNS INT AS $$
DECLARE
  v_amount DECIMAL(6,2) := p_cents / 100.0;
  v_w_name VARCHAR(10); v_w_street_1 VARCHAR(20); v_w_street_2 VARCHAR(20); v_w_city VARCHAR(20);
  v_w_state CHAR(2); v_w_zip CHAR(9);
  v_d_name VARCHAR(10); v_d_street_1 VARCHAR(20); v_d_street_2 VARCHAR(20); v_d_city VARCHAR(20);
  v_d_state CHAR(2); v_d_zip CHAR(9);
  v_c_id INT := p_c_id; v_n INT;
  v_first VARCHAR(16); v_middle CHAR(2); v_last VARCHAR(16); v_street_1 VARCHAR(20);
  v_street_2 VARCHAR(20); v_city VARCHAR(20); v_state CHAR(2); v_zip CHAR(9); v_phone CHAR(16);
  v_since TIMESTAMP; v_credit CHAR(2); v_credit_lim DECIMAL(12,2); v_discount DECIMAL(4,4);
  v_balance DECIMAL(12,2);
BEGIN
  UPDATE {warehouse} SET w_ytd = w_ytd + v_amount WHERE w_id = p_w
    RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
    INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip;
  UPDATE {district} SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
    INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip;
  IF v_c_id = 0 THEN
    -- By last name: the customer at position ceil(n/2) in first-name order.
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'no customer with last name % in warehouse % district %', p_c_last, p_c_w, p_c_d;
    END IF;
    SELECT c_id INTO v_c_id FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
      ORDER BY c_first OFFSET (v_n + 1) / 2 - 1 LIMIT 1;
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
      c_credit, c_credit_lim, c_discount, c_balance
    INTO v_first, v_middle, v_last, v_street_1, v_street_2, v_city, v_state, v_zip, v_phone, v_since,
      v_credit, v_credit_lim, v_discount, v_balance
    FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id FOR UPDATE;
  IF v_credit = 'BC' THEN
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = SUBSTR(v_c_id || ' ' || p_c_d || ' ' || p_c_w || ' ' || p_d || ' ' || p_w || ' ' ||
          v_amount || '|' || c_data, 1, 500)
      WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
  ELSE
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
  END IF;
  INSERT INTO {history} (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d, p_c_w, p_d, p_w, CURRENT_TIMESTAMP, v_amount, v_w_name || '    ' || v_d_name);
  RETURN v_c_id;
END $$ LANGUAGE plpgsql]],

  order_status = [[
CREATE OR REPLACE FUNCTION {P}tpcc_order_status(p_w INT, p_d INT, p_c_id INT, p_c_last TEXT) RETURNS INT AS $$
DECLARE
  v_c_id INT := p_c_id; v_n INT; v_balance DECIMAL(12,2); v_first VARCHAR(16); v_middle CHAR(2);
  v_last VARCHAR(16); v_o_id INT; v_entry TIMESTAMP; v_carrier INT; v_lines INT := 0; r RECORD;
BEGIN
  IF v_c_id = 0 THEN
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'no customer with last name % in warehouse % district %', p_c_last, p_w, p_d;
    END IF;
    SELECT c_id, c_balance, c_first, c_middle, c_last INTO v_c_id, v_balance, v_first, v_middle, v_last
      FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last
      ORDER BY c_first OFFSET (v_n + 1) / 2 - 1 LIMIT 1;
  ELSE
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
      FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c_id;
  END IF;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry, v_carrier FROM {orders}
    WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;
  FOR r IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM {order_line}
      WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o_id LOOP
    v_lines := v_lines + 1;
  END LOOP;
  RETURN v_lines;
END $$ LANGUAGE plpgsql]],

  delivery = [[
CREATE OR REPLACE FUNCTION {P}tpcc_delivery(p_w INT, p_carrier INT) RETURNS INT AS $$
DECLARE
  v_o_id INT; v_c_id INT; v_sum DECIMAL(12,2); v_n INT; v_skipped INT := 0;
BEGIN
  FOR v_d IN 1..10 LOOP
    v_o_id := NULL;
    FOR v_try IN 1..100 LOOP
      SELECT no_o_id INTO v_o_id FROM {new_order} WHERE no_w_id = p_w AND no_d_id = v_d
        ORDER BY no_o_id LIMIT 1 FOR UPDATE;
      IF FOUND THEN
        DELETE FROM {new_order} WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        EXIT WHEN v_n = 1;
        v_o_id := NULL; -- delivered by a concurrent Delivery meanwhile: take the next one
      ELSE
        -- READ COMMITTED: the row we waited for was deleted by the Delivery that held it, and
        -- FOR UPDATE with LIMIT then returns nothing. Is the district really empty?
        PERFORM 1 FROM {new_order} WHERE no_w_id = p_w AND no_d_id = v_d LIMIT 1;
        EXIT WHEN NOT FOUND;
      END IF;
    END LOOP;
    IF v_o_id IS NULL THEN
      v_skipped := v_skipped + 1;
      CONTINUE;
    END IF;
    SELECT o_c_id INTO v_c_id FROM {orders} WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o_id;
    UPDATE {orders} SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o_id;
    UPDATE {order_line} SET ol_delivery_d = CURRENT_TIMESTAMP
      WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o_id;
    SELECT SUM(ol_amount) INTO v_sum FROM {order_line} WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o_id;
    UPDATE {customer} SET c_balance = c_balance + COALESCE(v_sum, 0), c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c_id;
  END LOOP;
  RETURN v_skipped;
END $$ LANGUAGE plpgsql]],

  stock_level = [[
CREATE OR REPLACE FUNCTION {P}tpcc_stock_level(p_w INT, p_d INT, p_threshold INT) RETURNS INT AS $$
DECLARE
  v_next INT; v_count INT;
BEGIN
  SELECT d_next_o_id INTO v_next FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM {order_line}, {stock}
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  RETURN v_count;
END $$ LANGUAGE plpgsql]],
}

-- MariaDB / MySQL. Lists of order lines arrive as comma-separated strings (no array type).
local MY = {
  new_order = [[
CREATE PROCEDURE {P}tpcc_new_order(p_w INT, p_d INT, p_c INT, p_all_local INT,
  p_items VARCHAR(200), p_supply VARCHAR(200), p_qty VARCHAR(100), p_number VARCHAR(100))
proc: BEGIN
  DECLARE v_discount DECIMAL(4,4);
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_w_tax, v_d_tax DECIMAL(4,4);
  DECLARE v_o_id, v_n, v_item, v_supply, v_qty, v_num, v_s_qty INT;
  DECLARE v_i INT DEFAULT 1;
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_name VARCHAR(24);
  DECLARE v_i_data, v_s_data VARCHAR(50);
  DECLARE v_dist CHAR(24);
  DECLARE v_found INT DEFAULT 1;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  SET v_n = LENGTH(p_items) - LENGTH(REPLACE(p_items, ',', '')) + 1;
  START TRANSACTION;
  SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_w_tax
    FROM {customer}, {warehouse} WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
  SELECT d_next_o_id, d_tax INTO v_o_id, v_d_tax FROM {district} WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
  UPDATE {district} SET d_next_o_id = v_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  INSERT INTO {orders} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, CURRENT_TIMESTAMP, NULL, v_n, p_all_local);
  INSERT INTO {new_order} (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
  WHILE v_i <= v_n DO
    SET v_item = SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', v_i), ',', -1);
    SET v_supply = SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', v_i), ',', -1);
    SET v_qty = SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', v_i), ',', -1);
    SET v_num = SUBSTRING_INDEX(SUBSTRING_INDEX(p_number, ',', v_i), ',', -1);
    SET v_found = 1;
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_i_data FROM {item} WHERE i_id = v_item;
    IF v_found = 0 THEN
      ROLLBACK; -- unused item number: the whole transaction rolls back
      SELECT -1;
      LEAVE proc;
    END IF;
    SELECT s_quantity, s_data, {DIST} INTO v_s_qty, v_s_data, v_dist
      FROM {stock} WHERE s_i_id = v_item AND s_w_id = v_supply FOR UPDATE;
    IF v_s_qty >= v_qty + 10 THEN
      SET v_s_qty = v_s_qty - v_qty;
    ELSE
      SET v_s_qty = v_s_qty - v_qty + 91;
    END IF;
    UPDATE {stock} SET s_quantity = v_s_qty, s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + IF(v_supply <> p_w, 1, 0)
      WHERE s_i_id = v_item AND s_w_id = v_supply;
    INSERT INTO {order_line} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
        ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d, p_w, v_num, v_item, v_supply, NULL, v_qty, v_qty * v_price, v_dist);
    SET v_i = v_i + 1;
  END WHILE;
  COMMIT;
  SELECT v_o_id;
END]],

  payment = [[
CREATE PROCEDURE {P}tpcc_payment(p_w INT, p_d INT, p_c_w INT, p_c_d INT, p_c_id INT,
  p_c_last VARCHAR(16), p_cents INT)
proc: BEGIN
  DECLARE v_amount DECIMAL(6,2);
  DECLARE v_w_name, v_d_name VARCHAR(10);
  DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
  DECLARE v_w_state, v_d_state CHAR(2);
  DECLARE v_w_zip, v_d_zip CHAR(9);
  DECLARE v_c_id, v_n, v_off INT;
  DECLARE v_first, v_last VARCHAR(16);
  DECLARE v_middle, v_state, v_credit CHAR(2);
  DECLARE v_street_1, v_street_2, v_city VARCHAR(20);
  DECLARE v_zip CHAR(9);
  DECLARE v_phone CHAR(16);
  DECLARE v_since DATETIME;
  DECLARE v_credit_lim, v_balance DECIMAL(12,2);
  DECLARE v_discount DECIMAL(4,4);
  SET v_amount = p_cents / 100;
  SET v_c_id = p_c_id;
  START TRANSACTION;
  UPDATE {warehouse} SET w_ytd = w_ytd + v_amount WHERE w_id = p_w;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip
    INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip FROM {warehouse} WHERE w_id = p_w;
  UPDATE {district} SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip
    INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip
    FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  IF v_c_id = 0 THEN
    -- By last name: the customer at position ceil(n/2) in first-name order.
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with this last name';
    END IF;
    SET v_off = (v_n + 1) DIV 2 - 1;
    SELECT c_id INTO v_c_id FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
      ORDER BY c_first LIMIT v_off, 1;
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
      c_credit, c_credit_lim, c_discount, c_balance
    INTO v_first, v_middle, v_last, v_street_1, v_street_2, v_city, v_state, v_zip, v_phone, v_since,
      v_credit, v_credit_lim, v_discount, v_balance
    FROM {customer} WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id FOR UPDATE;
  IF v_credit = 'BC' THEN
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = SUBSTRING(CONCAT(v_c_id, ' ', p_c_d, ' ', p_c_w, ' ', p_d, ' ', p_w, ' ', v_amount, '|', c_data), 1, 500)
      WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
  ELSE
    UPDATE {customer} SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
  END IF;
  INSERT INTO {history} (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d, p_c_w, p_d, p_w, CURRENT_TIMESTAMP, v_amount, CONCAT(v_w_name, '    ', v_d_name));
  COMMIT;
  SELECT v_c_id;
END]],

  order_status = [[
CREATE PROCEDURE {P}tpcc_order_status(p_w INT, p_d INT, p_c_id INT, p_c_last VARCHAR(16))
proc: BEGIN
  DECLARE v_c_id, v_n, v_off, v_o_id, v_carrier, v_lines, v_qty INT;
  DECLARE v_balance, v_amount DECIMAL(12,2);
  DECLARE v_first, v_last VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_entry, v_delivery DATETIME;
  SET v_c_id = p_c_id;
  START TRANSACTION;
  IF v_c_id = 0 THEN
    SELECT COUNT(*) INTO v_n FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with this last name';
    END IF;
    SET v_off = (v_n + 1) DIV 2 - 1;
    SELECT c_id, c_balance, c_first, c_middle, c_last INTO v_c_id, v_balance, v_first, v_middle, v_last
      FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_c_last
      ORDER BY c_first LIMIT v_off, 1;
  ELSE
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
      FROM {customer} WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c_id;
  END IF;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry, v_carrier FROM {orders}
    WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;
  -- Every order line of the order is read (aggregated: a procedure cannot return rows cheaply).
  SELECT COUNT(ol_i_id), SUM(ol_supply_w_id), SUM(ol_quantity), SUM(ol_amount), MAX(ol_delivery_d)
    INTO v_lines, v_n, v_qty, v_amount, v_delivery FROM {order_line}
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o_id;
  COMMIT;
  SELECT v_lines;
END]],

  delivery = [[
CREATE PROCEDURE {P}tpcc_delivery(p_w INT, p_carrier INT)
proc: BEGIN
  DECLARE v_d INT DEFAULT 1;
  DECLARE v_skipped INT DEFAULT 0;
  DECLARE v_o_id, v_c_id INT;
  DECLARE v_sum DECIMAL(12,2);
  DECLARE v_found INT DEFAULT 1;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  START TRANSACTION;
  WHILE v_d <= 10 DO
    SET v_found = 1;
    SELECT no_o_id INTO v_o_id FROM {new_order} WHERE no_w_id = p_w AND no_d_id = v_d
      ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_found = 0 THEN
      SET v_skipped = v_skipped + 1;
    ELSE
      DELETE FROM {new_order} WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o_id;
      SELECT o_c_id INTO v_c_id FROM {orders} WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o_id;
      UPDATE {orders} SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o_id;
      UPDATE {order_line} SET ol_delivery_d = CURRENT_TIMESTAMP
        WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o_id;
      SELECT SUM(ol_amount) INTO v_sum FROM {order_line} WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o_id;
      UPDATE {customer} SET c_balance = c_balance + IFNULL(v_sum, 0), c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c_id;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT v_skipped;
END]],

  stock_level = [[
CREATE PROCEDURE {P}tpcc_stock_level(p_w INT, p_d INT, p_threshold INT)
proc: BEGIN
  DECLARE v_next, v_count INT;
  START TRANSACTION;
  SELECT d_next_o_id INTO v_next FROM {district} WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM {order_line}, {stock}
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  COMMIT;
  SELECT v_count;
END]],
}

M.NAMES = { "new_order", "payment", "order_status", "delivery", "stock_level" }

local function expand(sql, s)
  local names = setmetatable({ P = s.prefix, DIST = DIST }, { __index = s.t })
  return (sql:gsub("{([%w_]+)}", names))
end

-- FNV-1a of the procedures' text, as 8 hex digits (h * 16777619 split as h * 403 + h << 24,
-- which stays exact in a double).
local function signature(text)
  local h = bit.tobit(2166136261)
  for i = 1, #text do
    h = bit.bxor(h, text:byte(i))
    h = bit.tobit(h * 403 + bit.lshift(h, 24))
  end
  return bit.tohex(h)
end

local function count_existing(con, s, d)
  local names = {}
  for i, name in ipairs(M.NAMES) do names[i] = fmt("'%stpcc_%s'", s.prefix, name) end
  return tonumber(con:query_row(d.routines_count(names)))
end

-- The procedures' text for each server's routine language (its dialect's routine_language).
local TEXTS = { plpgsql = PG, mysql = MY }

-- Does tpcc have procedure texts for the server's routine language?
function M.available(d)
  return TEXTS[d.routine_language] ~= nil
end

-- The texts for the server, or a one-line error naming the way out.
local function texts_for(d)
  local t = TEXTS[d.routine_language]
  if not t then
    common.fail("tpcc has no stored procedures for the %s dialect (%s): run with " ..
      "--procedures=off (client-side transactions, the default there)", d.name,
      d.routine_language and "routine language " .. d.routine_language or "it has no stored routines")
  end
  return t
end

-- Creates the procedures unless the schema already has these very ones (their signature is kept
-- in the configuration table), so that they always match this version of luabench. Processes
-- started together (--instance) take a server-side lock: the first creates them, the others
-- find them, and none replaces a procedure that another one's terminals are calling.
function M.create(con)
  local s = common.settings()
  local d = common.dialect()
  local texts = {}
  local src = texts_for(d)
  for i, name in ipairs(M.NAMES) do texts[i] = expand(src[name], s) end
  local sig = signature(concat(texts, "\0"))
  local lock = fmt("'%stpcc_procs'", s.prefix)
  con:query(d.lock(lock))
  local ok, err = pcall(function()
    if common.config_read(con).procedures == sig and count_existing(con, s, d) == #M.NAMES then
      return
    end
    for i, name in ipairs(M.NAMES) do
      -- A text without CREATE OR REPLACE needs the old routine gone first.
      if not texts[i]:find("^%s*CREATE OR REPLACE") then
        con:query(d.drop_routine(fmt("%stpcc_%s", s.prefix, name)))
      end
      con:query(texts[i])
    end
    common.config_set(con, "procedures", sig)
  end)
  con:query(d.unlock(lock))
  if not ok then error(err, 0) end
end

function M.drop(con)
  local s = common.settings()
  for _, name in ipairs(M.NAMES) do
    con:query(common.dialect().drop_routine(fmt("%stpcc_%s", s.prefix, name)))
  end
end

-- The transaction bodies for the terminal: same inputs as tpcc.txn's, same return values.
function M.bodies(ctx)
  local con, s = ctx.con, ctx.s
  local d = common.dialect()
  texts_for(d)
  local P = s.prefix
  local INT, VARCHAR = sysbench.sql.type.INT, sysbench.sql.type.VARCHAR

  -- Functions (PostgreSQL): prepared SELECT fn(...). Procedures (MySQL): CALL as text (a
  -- prepared CALL's result sets cannot be read through the driver's prepared-statement path).
  -- proc(name, types) returns f(a1, a2, ...) that calls the procedure and returns its result.
  local proc
  if d.routines_return then
    proc = function(name, types)
      local marks = {}
      for i = 1, #types do marks[i] = "?" end
      local stmt = con:prepare(fmt("SELECT %stpcc_%s(%s)", P, name, concat(marks, ", ")))
      local ps = {}
      for i = 1, #types do ps[i] = stmt:bind_create(types[i], 200) end
      stmt:bind_param(unpack(ps))
      local run = require("tpcc.txn").binder(#ps)(stmt, ps)
      return function(...)
        return tonumber(run(...):fetch_row()[1])
      end
    end
  else
    -- Only integers and generated names/number lists: nothing to escape.
    proc = function(name, types)
      local pattern = {}
      for i = 1, #types do pattern[i] = types[i] == VARCHAR and "'%s'" or "%d" end
      pattern = fmt("CALL %stpcc_%s(%s)", P, name, concat(pattern, ","))
      return function(...)
        return tonumber(con:query_row(fmt(pattern, ...)))
      end
    end
  end

  local call_new_order = proc("new_order", { INT, INT, INT, INT, VARCHAR, VARCHAR, VARCHAR, VARCHAR })
  local call_payment = proc("payment", { INT, INT, INT, INT, INT, VARCHAR, INT })
  local call_order_status = proc("order_status", { INT, INT, INT, VARCHAR })
  local call_delivery = proc("delivery", { INT, INT })
  local call_stock_level = proc("stock_level", { INT, INT, INT })

  local items, supply, qty, num = {}, {}, {}, {}
  local b = {}

  function b.new_order(inp)
    local order = inp.order
    for i = 1, 15 do items[i], supply[i], qty[i], num[i] = nil, nil, nil, nil end
    for k = 1, inp.n do
      local l = order[k]
      items[k], supply[k], qty[k], num[k] = l.item, l.supply, l.qty, l.number
    end
    local r = call_new_order(inp.w, inp.d, inp.c, inp.all_local, concat(items, ","),
      concat(supply, ","), concat(qty, ","), concat(num, ","))
    return r < 0 -- rolled back
  end

  function b.payment(inp)
    call_payment(inp.w, inp.d, inp.c_w, inp.c_d, inp.c_id or 0, inp.c_last or "", inp.amount)
    return false
  end

  function b.order_status(inp)
    call_order_status(inp.w, inp.d, inp.c_id or 0, inp.c_last or "")
    return false
  end

  function b.delivery(inp)
    inp.skipped = inp.skipped + call_delivery(inp.w, inp.carrier)
    return false
  end

  function b.stock_level(inp)
    call_stock_level(inp.w, inp.d, inp.threshold)
    return false
  end

  return b
end

return M
