-- luabench.workload: the helpers tpcc, bookstore, dbt3 and soe share.
local h = require("helpers")
local workload = require("luabench.workload")

describe("luabench.workload", function()
  it("names tables under a checked prefix", function()
    local t = workload.tables("w1_", { "a", "b" }, "cfg")
    assert.are.same({ a = "w1_a", b = "w1_b", config = "w1_cfg" }, t)
    assert.are.same({ a = "a", config = "cfg" }, workload.tables("", { "a" }, "cfg"))
    for _, bad in ipairs({ "1x", "Bad", "a-b" }) do
      local ok, err = pcall(workload.tables, bad, { "a" }, "cfg")
      assert.is_false(ok)
      assert.are.equal("invalid --table-prefix value '" .. bad ..
        "' (lower-case letters, digits and '_', not starting with a digit)", err)
    end
  end)

  it("prints check lines and a summary that says whether all held", function()
    local script = [[
      local c = require("luabench.workload").checks()
      print("R1", c:expect("rows", 5, 5))
      print("R2", c:expect("orphans", 2, 0))
      print("R3", c:finish("checks"))
      local d = require("luabench.workload").checks()
      d:expect("x", "a", "a")
      print("R4", d:finish("invariants"))
    ]]
    local out, err, rc = h.run("- --verbosity=1", { stdin = script })
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("  [ ok ] rows: 5\nR1\ttrue", 1, true), out)
    assert.is_truthy(out:find("  [FAIL] orphans: 2 (expected 0)\nR2\tfalse", 1, true), out)
    assert.is_truthy(out:find("check: 1 of 2 checks FAILED\nR3\tfalse", 1, true), out)
    assert.is_truthy(out:find("check: all 1 invariants passed\nR4\ttrue", 1, true), out)
  end)

  it("sums per-thread counters slot by slot", function()
    local p = luabench.shared("workload_spec.slots", "double", 6)
    for i = 0, 5 do p[i] = i + 1 end -- thread 0: 1 2 3, thread 1: 4 5 6
    assert.are.same({ [0] = 5, [1] = 7, [2] = 9 }, workload.sum_slots(p, 2, 3))
    assert.are.same({ [0] = 1, [1] = 2 }, workload.sum_slots(p, 1, 2))
    local ok, err = pcall(workload.sum_slots, p, 0, 2)
    assert.is_false(ok)
    assert.is_truthy(err:find("luabench.workload.sum_slots(array, threads, slots): threads must be an integer >= 1 (got 0)", 1, true), err)
  end)

  it("refuses a driver without a dialect in one line", function()
    local script = [[
      local wl = require("luabench.workload").new("demo")
      local ok, err = pcall(wl.connect)
      print("ERR", err)
    ]]
    local out, err, rc = h.run("- --db-driver=null --verbosity=1", { stdin = script })
    assert.are.equal(0, rc, err)
    assert.are.equal("demo needs a database: --db-driver=pgsql or --db-driver=mysql (got 'null')",
      out:match("ERR\t([^\n]*)"))
  end)

  it("applies the session settings on connect", function()
    local opts = h.db("pgsql")
    if not opts then pending("pgsql sandbox server not running") return end
    local script = [[
      local wl = require("luabench.workload").new("demo", {
        session = function(con, d) con:query(d.set_isolation("SERIALIZABLE")) end })
      local con = wl.connect()
      print("ISO", con:query_row("SHOW transaction_isolation"))
    ]]
    local out, err, rc = h.run("- --verbosity=1 " .. opts, { stdin = script })
    assert.are.equal(0, rc, err)
    assert.are.equal("serializable", out:match("ISO\t(%S+)"), out)
  end)
  -- A workload of four modules wired by wire(), on SQLite: help, a parallel command, the run's
  -- hooks with its statistics types, the configuration table, cleanup with and without a schema.
  local WIRED = [[
local function module(name, m) package.preload[name] = function() return m end end
local workload = require("luabench.workload")
local common = { options = { size = { "Rows of the demo", 10 } } }
common.open = workload.new("wired").open
common.table_exists = require("luabench.prepare").table_exists
function common.settings() return { t = { config = "wired_config" } } end
module("wired.common", common)
module("wired.load", { prepare = function() print("PREPARE " .. sysbench.tid) end })
module("wired.check", { check = function()
  local con = common.open()
  local function ready()
    local ok, err = pcall(workload.ready_config, con, "wired", "wired_config", "run 'prepare' again", { "n" })
    return ok and ("n=" .. type(err.n) .. " " .. err.n) or err
  end
  print("R1 " .. ready())
  con:query("CREATE TABLE wired_config (cfg_name VARCHAR(30), cfg_value VARCHAR(30))")
  print("R2 " .. ready())
  workload.config_set(con, "wired_config", "ready", 1)
  workload.config_set(con, "wired_config", "n", 42)
  print("R3 " .. ready())
  return false
end })
module("wired.schema", { drop = function(con) con:query("DROP TABLE wired_config") end })
local events = 0
module("wired.run", {
  thread_init = function(tid, types) print("TYPES " .. #types) end,
  event = function() events = events + 1 end,
  thread_done = function() print("EVENTS " .. events) end,
})
module("wired.report", { footer = function() return "FOOTER\n" end })
workload.wire({
  name = "wired", common = common, types = { "A", "B" },
  commands = { prepare = { "wired.load.prepare", sysbench.cmdline.PARALLEL_COMMAND },
               check = { "wired.check.check" } },
  about = "wired: a demo. Commands: prepare, run, check, cleanup, help",
  notes = { "prepare does nothing." },
  drops = "wired tables", drop = { "wired.schema" },
  run = "wired.run", report = "wired.report",
})
]]

  it("wires a workload's modules to the hooks and commands", function()
    local script = h.q(h.write("wired.lua", WIRED)) .. " --db-driver=sqlite --sqlite-db=" ..
      h.q(h.tmpdir() .. "/wired.db")
    local out, err, rc = h.run(script .. " help")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("wired: a demo. Commands: prepare, run, check, cleanup, help\n\nwired options:\n" ..
      "  --size=N Rows of the demo [10]\n\nprepare does nothing.\n", 1, true), out)
    out, err, rc = h.run(script .. " --threads=2 prepare")
    assert.are.equal(0, rc, err)
    assert.are.equal(2, h.count(out, "PREPARE %d"), out)
    out, err, rc = h.run(script .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("\nNo wired schema here (no table 'wired_config'): nothing to drop\n", 1, true), out)
    out, err, rc = h.run(script .. " check")
    assert.are.equal(1, rc, "check returned false: " .. err)
    assert.is_truthy(out:find("R1 no wired schema here (table 'wired_config' does not exist): run 'prepare' first\n" ..
      "R2 the wired schema is not completely loaded (an interrupted prepare?): run 'prepare' again\n" ..
      "R3 n=number 42\n", 1, true), out)
    out, err, rc = h.run(script .. " --events=5 --threads=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("TYPES 2\n", 1, true), out)
    assert.is_truthy(out:find("EVENTS 5\n", 1, true), out)
    assert.is_truthy(out:find("\nFOOTER\n", 1, true), out)
    out, err, rc = h.run(script .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("\nDropping the wired tables...\n", 1, true), out)
  end)
end)
