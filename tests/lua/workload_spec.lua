-- luabench.workload: the helpers tpcc and bookstore share.
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
end)
