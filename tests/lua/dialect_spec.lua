-- luabench.dialect: the SQL each dialect produces, run against the real sandbox servers.
local h = require("helpers")
local dialect = require("luabench.dialect")

-- Runs SQL on the sandbox server of `name` and returns the first column of each row.
local function on(name, sql)
  local opts = h.db(name)
  if not opts then pending(name .. " sandbox server not running") return nil end
  return h.sql(opts, sql)
end

describe("luabench.dialect", function()
  it("knows the shipped dialects, and says which it knows otherwise", function()
    for _, name in ipairs({ "pgsql", "mysql", "oracle", "dm8", "sqlserver", "sqlite" }) do
      assert.are.equal(name, dialect.of(name).name)
    end
    local d, why = dialect.of("null")
    assert.is_nil(d)
    assert.are.equal("no SQL dialect for driver 'null' (known: dm8, duckdb, mysql, oracle, pgsql, sqlite, sqlserver)", why)
  end)

  it("every shipped dialect has every required entry", function()
    for _, name in ipairs({ "pgsql", "mysql", "oracle", "dm8", "sqlserver", "sqlite" }) do
      for _, k in ipairs(dialect.REQUIRED) do
        assert.is_not_nil(dialect.of(name)[k], name .. " lacks " .. k)
      end
    end
    -- the properties the workloads read, also where they are false
    for _, name in ipairs({ "pgsql", "mysql", "oracle", "dm8", "sqlserver", "sqlite" }) do
      local d = dialect.of(name)
      for _, k in ipairs({ "clustered", "inline_keys", "auto_key_zero", "transactional_ddl", "index_names_per_table",
        "empty_is_null", "bulk_generates_keys", "copy", "returning", "routines_return", "locking_read_can_miss" }) do
        assert.are.equal("boolean", type(d[k]), name .. "." .. k)
      end
    end
  end)

  it("writes each server's text", function()
    local pg, my = dialect.of("pgsql"), dialect.of("mysql")
    assert.are.equal("INTERVAL '3 days'", pg.interval(3, "day"))
    assert.are.equal("INTERVAL 2 HOUR", my.interval(2, "hour"))
    assert.are.equal([['it''s \n']], pg.lit("it's \\n"))
    assert.are.equal([['it''s \\n']], my.lit("it's \\n"))
    assert.are.equal("ANALYZE t", pg.analyze("t"))
    assert.are.equal("ANALYZE TABLE t", my.analyze("t"))
    assert.are.equal("VACUUM ANALYZE t", pg.analyze_after_load("t"))
    assert.are.equal("CREATE INDEX i ON t (a, b)", pg.create_index("i", "t", "a, b"))
    assert.are.equal("ALTER TABLE t ADD INDEX i (a, b)", my.create_index("i", "t", "a, b"))
    assert.are.equal("SET foreign_key_checks = 0", my.foreign_key_checks(false))
    assert.is_nil(pg.foreign_key_checks)
    assert.is_nil(my.next_key("t", "id"))
    assert.are.equal("SELECT a FROM t LIMIT 10", pg.limit("SELECT a FROM t", 10))
    assert.are.equal("SELECT a FROM t LIMIT 10", my.limit("SELECT a FROM t", 10))
    assert.are.equal("SELECT a FROM t FETCH FIRST 10 ROWS ONLY", dialect.of("oracle").limit("SELECT a FROM t", 10))
    assert.are.equal("SELECT a FROM t ORDER BY a LIMIT 10 OFFSET ?", pg.limit_offset("SELECT a FROM t ORDER BY a", 10))
    assert.are.equal("SELECT a FROM t ORDER BY a LIMIT 10 OFFSET ?", dialect.of("sqlite").limit_offset("SELECT a FROM t ORDER BY a", 10))
    assert.are.equal("SELECT a FROM t ORDER BY a OFFSET ? ROWS FETCH NEXT 10 ROWS ONLY",
      dialect.of("oracle").limit_offset("SELECT a FROM t ORDER BY a", 10))
    assert.are.equal("SELECT a FROM t ORDER BY a OFFSET ? ROWS FETCH NEXT 10 ROWS ONLY",
      dialect.of("sqlserver").limit_offset("SELECT a FROM t ORDER BY a", 10))
    assert.has_error(function() dialect.of("sqlserver").limit_offset("SELECT a FROM t", 10) end)
    assert.is_false(dialect.of("oracle").load_stream)
    assert.are.equal("SET statement_timeout = 1500", pg.statement_timeout(1.5))
    assert.are.equal("SET SESSION max_statement_time = 1.500", my.statement_timeout(1.5))
    assert.are.equal("COPY t (a, b) FROM STDIN", pg.load_stream("t", "a, b"))
    assert.are.equal(" ENGINE = InnoDB", my.table_options)
    assert.are.equal("", pg.table_options)
  end)

  for _, name in ipairs(h.drivers) do
    describe(name, function()
      local d = dialect.of(name)
      local t = "lbt_dialect_" .. name

      it("its SQL runs on the server and answers what it asks", function()
        local setup = {
          "DROP TABLE IF EXISTS " .. t,
          string.format("CREATE TABLE %s (id %s, s VARCHAR(40), at %s, PRIMARY KEY (id))%s", t, d.identity,
            d.timestamp, d.table_options),
          d.create_index("ix_" .. t, t, d.like_prefix_column("s")),
          d.set_isolation("REPEATABLE READ"),
          d.analyze(t),
        }
        for _, sql in ipairs(setup) do
          if not on(name, sql) then return end
        end
        assert.are.same({ "1" }, on(name, d.index_exists(t, "ix_" .. t)))
        assert.are.same({}, on(name, d.index_exists(t, "no_such_index")))
        assert.are.same({}, on(name, d.constraint_exists("no_such_constraint")))
        assert.are.same({ "0" }, on(name, d.routines_count({ "'no_such_routine'" })))
        assert.are.same({ "1" }, on(name, "SELECT CASE WHEN CURRENT_TIMESTAMP + " .. d.interval(1, "day") ..
          " > CURRENT_TIMESTAMP + " .. d.interval(23, "hour") .. " THEN 1 ELSE 0 END"))
        assert.are.same({ [[a'b\c]] }, on(name, "SELECT " .. d.lit([[a'b\c]])))
        -- keys: the server numbers rows; restart_keys continues above explicit ones
        local script = string.format([[
          local d = require("luabench.dialect").of(%q)
          local con = sysbench.sql.driver():connect()
          con:query("INSERT INTO %s (id, s) VALUES (41, 'x')")
          d.restart_keys(con, %q, "id")
          local id = d.insert_id(con, "INSERT INTO %s (s) VALUES ('y')", "id")
          print("ID", id)
          con:query("DROP TABLE %s")
        ]], name, t, t, t, t)
        local out, err, rc = h.run("- --verbosity=1 " .. h.db(name), { stdin = script })
        assert.are.equal(0, rc, err)
        assert.are.equal("42", out:match("ID\t(%d+)"), out)
      end)

      it("its row limits, locking reads, upsert, bulk inserts, dates and drops run and answer", function()
        if not h.db(name) then pending(name .. " sandbox server not running") return end
        local script = ([[
          local D = require("luabench.dialect").of(NAME)
          local con = sysbench.sql.driver():connect()
          local function q(sql) return con:query(sql) end
          local function v(sql) return con:query_row(sql) end
          for _, s in ipairs(D.drop_tables({ "TBL" })) do q(s) end
          q(D.create_table_if_missing("TBL", "id INTEGER NOT NULL, s VARCHAR(20), PRIMARY KEY (id)"))
          q(D.create_table_if_missing("TBL", "id INTEGER NOT NULL, s VARCHAR(20), PRIMARY KEY (id)"))
          local b = D.bulk_insert(con, "INSERT INTO TBL (id, s) VALUES")
          for i = 1, 5 do b:next(string.format("(%d, 'r%d')", i, i)) end
          b:done()
          for _, s in ipairs(D.insert_values("INSERT INTO TBL (id, s) VALUES", { "(6, 'r6')", "(7, 'r7')" })) do q(s) end
          print("COUNT", v("SELECT COUNT(*) FROM TBL"))
          q(D.upsert("TBL", { "id" }, { "s" }, { "7", "'seven'" }))
          q(D.upsert("TBL", { "id" }, { "s" }, { "8", "'eight'" }))
          print("UPSERT", v("SELECT s FROM TBL WHERE id = 7"), v("SELECT s FROM TBL WHERE id = 8"))
          print("LIMIT", v("SELECT COUNT(*) FROM (" .. D.limit("SELECT id FROM TBL ORDER BY id DESC", 3) .. ") x"),
            v(D.limit("SELECT id FROM TBL ORDER BY id DESC", 1)))
          local page = con:prepare(D.limit_offset("SELECT id FROM TBL ORDER BY id", 2))
          local skip = page:bind_create(sysbench.sql.type.INT)
          page:bind_param(skip)
          skip:set(3)
          local rs = page:execute()
          local first = rs:fetch_row()
          print("PAGE", first[1], rs.nrows)
          page:close()
          q(D.begin)
          print("LOCKED", v(D.first_locked("SELECT id FROM TBL WHERE id > 2 ORDER BY id", 1)),
            v(D.for_update("SELECT s FROM TBL WHERE id = 3")))
          q(D.rollback)
          print("TEXT", v("SELECT " .. D.concat(D.to_text("id"), "'-'", "s") .. " FROM TBL WHERE id = 2"))
          print("DATE", v("SELECT CASE WHEN " .. D.date_add(D.current_date, 2, "day") .. " > " ..
            D.date_add("CURRENT_TIMESTAMP", 1, "hour") .. " THEN 1 ELSE 0 END"))
          print("BOOL", v("SELECT CASE WHEN " .. D.bool(true) .. " THEN 1 ELSE 0 END" .. D.from_dual))
          print("IDENT", v("SELECT COUNT(*) FROM " .. D.quote_ident("TBL")))
          print("EXISTS", v(D.table_exists("TBL")) ~= nil, v(D.table_exists("no_such_table")) == nil)
          for _, s in ipairs(D.drop_tables({ "TBL" })) do q(s) end
          print("GONE", v(D.table_exists("TBL")) == nil)
        ]]):gsub("NAME", string.format("%q", name)):gsub("TBL", t .. "_k")
        local out, err, rc = h.run("- --verbosity=1 " .. h.db(name), { stdin = script })
        assert.are.equal(0, rc, err)
        assert.truthy(out:find("COUNT\t7\n", 1, true), out)
        assert.truthy(out:find("UPSERT\tseven\teight\n", 1, true), out)
        assert.truthy(out:find("LIMIT\t3\t8\n", 1, true), out)
        assert.truthy(out:find("PAGE\t4\t2\n", 1, true), out)
        assert.truthy(out:find("LOCKED\t3\tr3\n", 1, true), out)
        assert.truthy(out:find("TEXT\t2-r2\n", 1, true), out)
        assert.truthy(out:find("DATE\t1\n", 1, true), out)
        assert.truthy(out:find("BOOL\t1\n", 1, true), out)
        assert.truthy(out:find("IDENT\t8\n", 1, true), out)
        assert.truthy(out:find("EXISTS\ttrue\ttrue\n", 1, true), out)
        assert.truthy(out:find("GONE\ttrue\n", 1, true), out)
      end)

      it("its sequences, now, minutes and ROLLUP run and answer", function()
        if not h.db(name) then pending(name .. " sandbox server not running") return end
        local script = ([[
          local D = require("luabench.dialect").of(NAME)
          local con = sysbench.sql.driver():connect()
          for _, n in ipairs({ "SEQ_a", "SEQ_b" }) do con:query(D.drop_sequence(n)) end
          con:query(D.create_sequence("SEQ_a", 41))
          con:query(D.create_sequence("SEQ_b", 7))
          local function take()
            local v = {}
            for _, sql in ipairs(D.next_values({ "SEQ_a", "SEQ_b" })) do
              for _, x in ipairs({ con:query_row(sql) }) do v[#v + 1] = x end
            end
            return table.concat(v, " ")
          end
          print("NEXT", take(), take())
          local st = con:prepare("SELECT " .. D.date_value("?") .. D.from_dual)
          local p = st:bind_create(sysbench.sql.type.VARCHAR, 10)
          st:bind_param(p)
          p:set("2024-02-29")
          print("DATE", st:execute():fetch_row()[1])
          print("NOW", con:query_row("SELECT CASE WHEN " .. D.date_add(D.now, -5, "minute") .. " < " .. D.now ..
            " AND " .. D.now .. " > " .. D.date_add("CURRENT_TIMESTAMP", -1, "day") .. " THEN 1 ELSE 0 END"))
          con:query("DROP TABLE IF EXISTS SEQ_r")
          con:query("CREATE TABLE SEQ_r (g INTEGER, m VARCHAR(4), v INTEGER)")
          con:query("INSERT INTO SEQ_r VALUES (1, 'x', 1), (1, 'x', 2), (1, 'y', 4)")
          local rs = con:query("SELECT g, m, SUM(v) FROM SEQ_r " .. D.group_by_rollup("g, m"))
          local rows = {}
          for r in function() return rs:fetch_row() end do
            rows[#rows + 1] = (r[1] or "*") .. "/" .. (r[2] or "*") .. "=" .. r[3]
          end
          table.sort(rows)
          print("ROLLUP", table.concat(rows, " "))
          con:query("DROP TABLE SEQ_r")
          for _, n in ipairs({ "SEQ_a", "SEQ_b" }) do con:query(D.drop_sequence(n)) end
        ]]):gsub("NAME", string.format("%q", name)):gsub("SEQ", t)
        local out, err, rc = h.run("- --verbosity=1 " .. h.db(name), { stdin = script })
        assert.are.equal(0, rc, err)
        assert.is_truthy(out:find("NEXT\t41 7\t42 8\n", 1, true), out)
        assert.is_truthy(out:find("NOW\t1\n", 1, true), out)
        assert.is_truthy(out:find("DATE\t2024-02-29\n", 1, true), out)
        assert.is_truthy(out:find("ROLLUP\t*/*=7 1/*=7 1/x=3 1/y=4\n", 1, true), out)
      end)

      it("streams rows with load_stream, limits rows, and times a statement out", function()
        if not h.db(name) then pending(name .. " sandbox server not running") return end
        local script = string.format([[
          local d = require("luabench.dialect").of(%q)
          local con = sysbench.sql.driver():connect()
          con:query("DROP TABLE IF EXISTS %s_ls")
          con:query("CREATE TABLE %s_ls (id INTEGER, s VARCHAR(10))")
          print("ENABLED", con:query_row(d.load_stream_enabled))
          con:copy_init(d.load_stream("%s_ls", "id, s"))
          con:copy_next("1\ta\n2\tb")
          con:copy_next("3\t\\N")
          con:copy_done()
          print("ROWS", con:query_row("SELECT COUNT(*), COUNT(s), SUM(id) FROM %s_ls"))
          print("LIMIT", con:query(d.limit("SELECT id FROM %s_ls ORDER BY id", 2)).nrows)
          con:query("DROP TABLE %s_ls")
          con:query(d.statement_timeout(0.05))
          local ok = pcall(con.query, con, "SELECT COUNT(*) FROM information_schema.columns a, information_schema.columns b, information_schema.columns c")
          print("TIMEOUT", ok, d.is_timeout(con))
          con:query(d.statement_timeout(0))
          print("AFTER", con:query_row("SELECT 7"))
        ]], name, t, t, t, t, t, t)
        local out, err, rc = h.run("- --verbosity=1 " .. h.db(name), { stdin = script })
        assert.are.equal(0, rc, err)
        assert.is_truthy(out:find("ENABLED\t1", 1, true), out)
        assert.is_truthy(out:find("ROWS\t3\t2\t6", 1, true), out)
        assert.is_truthy(out:find("LIMIT\t2", 1, true), out)
        assert.is_truthy(out:find("TIMEOUT\tfalse\ttrue", 1, true), out)
        assert.is_truthy(out:find("AFTER\t7", 1, true), out)
      end)
    end)
  end
end)
