-- dbt3 on dbgen's data: tpchgen-cli (dbgen's rows, from PyPI; tools/install-deps installs it)
-- writes SF 0.01, `load-dbgen` loads it on every server (and DuckDB), which must then hold every row of the
-- files; `answers --qualification` on each server agrees with PostgreSQL's, also through the
-- TPC-H precision rules of --answers-dir; and the refresh-row cleanup leaves dbgen's rows alone
-- (dbgen's order keys include multiples of 32, which the old key pattern deleted).
local h = require("helpers")

local function tpchgen()
  for _, p in ipairs({ "/opt/luabench/venv/bin/tpchgen-cli", "tpchgen-cli" }) do
    local f = io.popen("command -v " .. p .. " 2>/dev/null")
    local found = f:read("*l")
    f:close()
    if found then return found end
  end
  if os.getenv("CI") == "true" then error("tpchgen-cli is not installed: run tools/install-deps") end
  return nil
end

-- The SF 0.01 files, made once per build tree.
local function dbgen_dir(bin)
  local dir = (os.getenv("LB_BUILD_ROOT") or h.tmpdir()) .. "/tpch-sf0.01"
  local f = io.open(dir .. "/lineitem.tbl")
  if f then f:close() return dir end
  local tmp = dir .. ".tmp" .. tostring(os.time())
  assert(os.execute(string.format("%s -s 0.01 --output-dir=%s >/dev/null && mv %s %s", bin, h.q(tmp), h.q(tmp), h.q(dir))))
  return dir
end

-- What the files hold: rows per table, and orders whose key is a multiple of 32.
local function file_facts(dir)
  local facts = { rows = {}, key32 = 0, totalprice = 0 }
  for _, t in ipairs({ "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem" }) do
    local n = 0
    for line in io.lines(dir .. "/" .. t .. ".tbl") do
      n = n + 1
      if t == "orders" then
        local key, price = line:match("^(%d+)|%d+|%a|([%d.]+)|")
        if tonumber(key) % 32 == 0 then facts.key32 = facts.key32 + 1 end
        facts.totalprice = facts.totalprice + math.floor(tonumber(price) * 100 + 0.5)
      end
    end
    facts.rows[t] = n
  end
  return facts
end

-- An answer set in the TPC-H kit's format (qN.out: header, `|`-separated padded rows) made from
-- an `answers` output, with the kit's column types.
local COLTYPES = {
  "str str sum sum sum sum avg avg avg cnt", "num str str int str str str str", "int sum str int", "str cnt",
  "str sum", "sum", "str str int sum", "int rat", "str int sum", "int str sum num str str str str", "int sum",
  "str sum sum", "cnt cnt", "rat", "int str str str sum", "str str num cnt", "avg", "str int int str num sum",
  "sum", "str str", "str cnt", "num cnt sum",
}
local function write_answer_set(dir, out, tweak)
  os.execute("mkdir -p " .. h.q(dir))
  local f = assert(io.open(dir .. "/colprecision.txt", "w"))
  f:write(table.concat(COLTYPES, "\n"), "\n")
  f:close()
  local q, file
  for line in (out .. "\n"):gmatch("([^\n]*)\n") do
    local n = line:match("^Q(%d+): ")
    if n then
      if file then file:close() end
      q = tonumber(n)
      file = assert(io.open(string.format("%s/q%d.out", dir, q), "w"))
      file:write("header|\n")
    elseif file and line:sub(1, 2) == "  " then
      local cols = {}
      for v in (line:sub(3) .. "\t"):gmatch("([^\t]*)\t") do cols[#cols + 1] = string.format("%-12s", v) end
      if tweak then tweak(q, cols) end
      file:write(table.concat(cols, "|"), "\n")
    end
  end
  if file then file:close() end
end

local servers = h.servers()
local duck = h.duckdb("dbgen.duckdb")
if duck then servers[#servers + 1] = { driver = "duckdb", db = duck } end

describe("dbt3 on dbgen's data", function()
  local bin = tpchgen()
  if #servers == 0 or not bin then
    pending("no sandbox server is running, or tpchgen-cli is not installed")
    return
  end
  local dir = dbgen_dir(bin)
  local facts = file_facts(dir)
  local P = "dg" .. tostring(os.time() % 100000) .. h.tmpdir():match("(%w+)$"):lower():sub(-4) .. "_"
  local answers_of, text_of = {}, {}

  for _, sv in ipairs(servers) do
    local base = string.format("dbt3 %s --table-prefix=%s", sv.db, P)
    describe("on " .. sv.driver, function()
      it("load-dbgen keeps every row of the files, with progress, and marks the schema ready", function()
        local out, err, rc = h.run(base .. " --threads=2 --dbgen-dir=" .. h.q(dir) .. " load-dbgen")
        assert.are.equal(0, rc, out .. err)
        assert.is_truthy(out:find("Progress: %d+/%d+ rows %(%d+%%%), %d+ rows/s"), out)
        assert.is_truthy(out:find("every file's rows in their table", 1, true), out)
        for t, n in pairs(facts.rows) do
          assert.are.same({ tostring(n) }, h.sql(sv.db, "SELECT COUNT(*) FROM " .. P .. t), t)
        end
        local cents = h.sql(sv.db, "SELECT SUM(o_totalprice) * 100 FROM " .. P .. "orders")
        assert.are.equal(facts.totalprice, tonumber(cents[1]))
        out, err, rc = h.run(base .. " check")
        assert.are.equal(0, rc, out .. err)
        assert.is_truthy(out:find("scale factor 0.01", 1, true), out)
      end)

      it("answers with the qualification parameters; a refresh pair left behind goes, dbgen's rows stay", function()
        -- an interrupted run's pair 5 (its RF1 recorded, its RF2 never ran): one order of its keys
        assert.is_true(facts.key32 > 0)
        h.sql(sv.db, string.format("INSERT INTO %sdbt3_config (cfg_name, cfg_value) VALUES ('rf_pending_5', '1')", P))
        h.sql(sv.db, string.format("INSERT INTO %sorders VALUES (300, 1, 'O', 1.00, DATE '1995-01-01', '1-URGENT', 'Clerk#000000001', 0, 'x')", P))
        local out, err, rc = h.run(base .. " --qualification answers")
        assert.are.equal(0, rc, err)
        assert.is_truthy(out:find("Removed 1 orders an interrupted run's refresh functions left behind", 1, true), out)
        assert.are.same({ tostring(facts.rows.orders) }, h.sql(sv.db, "SELECT COUNT(*) FROM " .. P .. "orders"))
        assert.are.same({ tostring(facts.key32) }, h.sql(sv.db, "SELECT COUNT(*) FROM " .. P .. "orders WHERE o_orderkey % 32 = 0"))
        assert.are.same({}, h.sql(sv.db, "SELECT cfg_name FROM " .. P .. "dbt3_config WHERE cfg_name LIKE 'rf_pending%'"))
        assert.is_truthy(out:find("Q1: 4 rows", 1, true), out)
        answers_of[sv.driver], text_of[sv.driver] = h.dbt3_answers(out), out
        -- a power test (RF1, 22 queries, RF2) leaves the loaded rows as they were
        out, err, rc = h.run(base .. " --threads=1 --tests=power --time=0 run")
        assert.are.equal(0, rc, out .. err)
        assert.are.same({ tostring(facts.rows.lineitem) }, h.sql(sv.db, "SELECT COUNT(*) FROM " .. P .. "lineitem"))
      end)
    end)
  end

  it("every server's answers agree with PostgreSQL's on the same data", function()
    local pg = answers_of.pgsql
    assert.is_truthy(pg, "PostgreSQL's answers")
    for driver, a in pairs(answers_of) do
      for q = 1, 22 do assert.are.same(pg["Q" .. q], a["Q" .. q], driver .. " Q" .. q) end
    end
  end)

  it("--answers-dir compares with an answer set under the precision rules and fails on a difference", function()
    local sv = servers[1]
    local base = string.format("dbt3 %s --table-prefix=%s --qualification", sv.db, P)
    local set = h.tmpdir() .. "/answers"
    -- a sum 50 off is within the rules; an average 2 % off is not
    write_answer_set(set, text_of.pgsql, function(q, cols)
      if q == 6 then cols[1] = string.format("%.2f", tonumber(cols[1]) + 50) end
    end)
    local out, err, rc = h.run(base .. " --answers-dir=" .. h.q(set) .. " answers")
    assert.are.equal(0, rc, out .. err)
    assert.is_truthy(out:find("22 of 22 queries agree", 1, true), out)
    write_answer_set(set, text_of.pgsql, function(q, cols)
      if q == 1 then cols[7] = string.format("%.2f", tonumber(cols[7]) * 1.02) end
    end)
    out, err, rc = h.run(base .. " --answers-dir=" .. h.q(set) .. " answers")
    assert.are.equal(1, rc, out .. err)
    assert.is_truthy(out:find("21 of 22 queries agree", 1, true), out)
    assert.is_truthy(out:find("differs: Q1: row 1 column 7 (?): ", 1, true), out)
  end)

  it("answers honours --query-timeout: timed-out queries are named and the exit code is 1", function()
    local sv = servers[1]
    local out, err, rc = h.run(string.format("dbt3 %s --table-prefix=%s --query-timeout=0.001 answers", sv.db, P))
    assert.are.equal(1, rc, out .. err)
    assert.is_truthy(out:find("Q%d+: timed out after 0.001s"), out)
    assert.is_truthy(out:find("of 22 queries timed out (--query-timeout=0.001)", 1, true), out)
  end)

  it("load-dbgen names a missing directory or file in one line; cleanup drops the tables", function()
    local sv = servers[1]
    local out, err, rc = h.run(string.format("dbt3 %s --table-prefix=x%s --dbgen-dir=/nonexistent load-dbgen", sv.db, P))
    assert.are_not.equal(0, rc)
    assert.is_truthy((out .. err):find("no dbgen file for table 'lineitem' in '/nonexistent'", 1, true), out .. err)
    for _, s in ipairs(servers) do
      out, err, rc = h.run(string.format("dbt3 %s --table-prefix=%s cleanup", s.db, P))
      assert.are.equal(0, rc, err)
    end
  end)
end)
