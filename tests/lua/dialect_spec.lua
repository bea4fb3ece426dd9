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
  it("knows pgsql and mysql, and says which it knows otherwise", function()
    assert.are.equal("pgsql", dialect.of("pgsql").name)
    assert.are.equal("mysql", dialect.of("mysql").name)
    local d, why = dialect.of("null")
    assert.is_nil(d)
    assert.are.equal("no SQL dialect for driver 'null' (known: mysql, pgsql)", why)
  end)

  it("every dialect has the same entries", function()
    local keys = {}
    for _, name in ipairs({ "pgsql", "mysql" }) do
      for k in pairs(dialect.of(name)) do keys[k] = true end
    end
    keys.copy_null, keys.foreign_key_checks = nil, nil -- only where the server has the thing
    for _, name in ipairs({ "pgsql", "mysql" }) do
      for k in pairs(keys) do
        assert.is_not_nil(dialect.of(name)[k], name .. " lacks " .. k)
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
    end)
  end
end)
