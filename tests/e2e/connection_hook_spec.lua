-- The connection hook (connection_init(con)): session state set there holds on every physical
-- connection under --users (pool of 4 for 8 users), and a SET in thread_init on a pooled
-- connection is warned about, naming the statement and the hook. The same after a server
-- restart is in faults_spec.lua (it runs alone).
local h = require("helpers")

-- A script that counts its events by the isolation level the server reports for them (one
-- transaction type per level). where: "hook" sets SERIALIZABLE in connection_init, "thread_init"
-- there.
local function iso_script(driver, where)
  local set = driver == "pgsql" and "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"
    or "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE"
  local show = driver == "pgsql" and "SHOW transaction_isolation" or "SELECT @@tx_isolation"
  return string.format([[
local con
local T = {}
function thread_init()
  con = sysbench.sql.driver():connect()
  if %q == "thread_init" then con:query(%q) end
end
function connection_init(c)
  if %q == "hook" then c:query(%q) end
end
function event()
  local v = con:query_row(%q):upper():gsub("[^%%w]", "_")
  local t = T[v]
  if not t then t = luabench.stats.type(v); T[v] = t end
  t:done(t:start())
  luabench.think(0.001)
end
]], where, set, where, set, show)
end

-- The events of a JSON result (one type per isolation level), all of them SERIALIZABLE.
local function all_serializable(out)
  local n = 0
  for name, t in pairs(h.json(out).types) do
    assert.are.equal("SERIALIZABLE", name, "events ran at another level: " .. out)
    n = n + t.count
  end
  return n
end

h.each_driver("the connection hook on %s", function(driver, db)

  it("sets the session of every pooled connection: 100 % of events see it", function()
    local p = h.write("hook_" .. driver .. ".lua", iso_script(driver, "hook"))
    local out, err, rc = h.run(h.q(p) .. " " .. db ..
      " --users=8 --connections=4 --threads=2 --time=2 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_falsy(err:find("WARNING", 1, true), err)
    assert.is_true(all_serializable(out) > 100)
  end)

  it("warns once when thread_init sets session state on a pooled connection", function()
    local p = h.write("hook_ti_" .. driver .. ".lua", iso_script(driver, "thread_init"))
    local out, err, rc = h.run(h.q(p) .. " " .. db ..
      " --users=8 --connections=4 --threads=2 --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    assert.are.equal(1, h.count(err, "WARNING: thread_init ran 'SET SESSION"), err)
    assert.is_truthy(err:find("on a pooled connection: with --users it reaches one of the pool's "
      .. "connections only; set session state in connection_init(con)", 1, true), err)
    -- and what it warns about: some events ran at the server's default level
    local doc = h.json(out)
    local other = 0
    for name, t in pairs(doc.types) do
      if name ~= "SERIALIZABLE" then other = other + t.count end
    end
    assert.is_true(other > 0, out)
  end)

  it("runs in thread mode too, and not a second time for the same connection", function()
    local p = h.write("hook_thr_" .. driver .. ".lua", [[
local n = 0
function connection_init(c) n = n + 1; c:query("SELECT 1") end
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
function thread_done() print("HOOK RAN " .. n) end
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db .. " --threads=2 --events=10 run")
    assert.are.equal(0, rc, err)
    assert.are.equal(2, h.count(out, "HOOK RAN 1\n"), out)
  end)

  it("gives the built-in workloads' session settings (tpcc --isolation) to every pooled connection", function()
    -- luabench.workload's connect(), as tpcc's run uses it, with a session like --isolation's
    local show = driver == "pgsql" and "SHOW transaction_isolation" or "SELECT @@tx_isolation"
    local p = h.write("hook_wl_" .. driver .. ".lua", [[
local wl = require("luabench.workload").new("demo", {
  session = function(con, d) con:query(d.set_isolation("SERIALIZABLE")) end })
local con
local T = {}
function thread_init() con = wl.connect() end
function event()
  local v = con:query_row("]] .. show .. [["):upper():gsub("[^%w]", "_")
  local t = T[v]
  if not t then t = luabench.stats.type(v); T[v] = t end
  t:done(t:start())
  luabench.think(0.001)
end
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db ..
      " --users=8 --connections=4 --threads=2 --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_true(all_serializable(out) > 50)
  end)
end)
