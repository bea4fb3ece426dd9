-- luabench.internal.differs: every key that differs between labels, whatever object holds it.
local differs = require("luabench.internal.differs")
local fx = require("lua.result_fixture")

local function find(rows, group, name)
  for _, r in ipairs(rows) do
    if r.group == group and r.name == name then return r end
  end
end

describe("luabench.internal.differs", function()
  it("takes an empty object or a bare array where another result has keys", function()
    local a, b = fx.doc(), fx.doc()
    a.placement, b.placement = {}, { process_cpus = "0" }
    a.driver_settings, b.driver_settings = { "x", "y" }, { "x" }
    local rows = differs.rows({ { a }, { b } })
    assert.are.same({ nil, "0" }, find(rows, "placement", "process_cpus").values)
    assert.are.same({ "x,y", "x" }, find(rows, "driver_settings", "(value)").values)
  end)

  it("lists the options, machine, placement, settings and busy host that differ, nested keys dotted", function()
    local a, b = fx.doc(), fx.doc()
    a.options["cpu-affinity"], b.options["cpu-affinity"] = "", "0"
    a.options.output, b.options.output = "a.json", "b.json"
    b.machine.caches = { l2_kib = 2048 }
    a.machine.caches = { l2_kib = 1024 }
    a.machine.isa = { "avx2", "aes" }
    b.machine.isa = { "avx2" }
    b.placement = { cpuset = "0", threads = { { thread = 0, cpus = "0" } } }
    a.placement = { cpuset = "0-1", threads = { { thread = 0, cpus = "0-1" } } }
    a.server = { settings = { synchronous_commit = "on" }, pending_settings = { wal_buffers = "64MB" } }
    b.server = { settings = { synchronous_commit = "off" } }
    b.host_busy = { busy = true, run_queue = 12.1 }
    -- a key no version of this module knows of
    b.duckdb_settings = { threads = "2" }
    a.duckdb_settings = { threads = "1" }
    b.options["pgsql-password"] = "hunter2"
    local rows = differs.rows({ { a }, { b } })
    assert.are.same({ "", "0" }, find(rows, "options", "cpu-affinity").values)
    assert.is_nil(find(rows, "options", "output"))
    assert.are.same({ "1024", "2048" }, find(rows, "machine", "caches.l2_kib").values)
    assert.are.same({ "avx2,aes", "avx2" }, find(rows, "machine", "isa").values)
    assert.are.same({ "0-1", "0" }, find(rows, "placement", "cpuset").values)
    assert.are.same({ "0-1", "0" }, find(rows, "placement", "threads.1.cpus").values)
    assert.are.same({ "on", "off" }, find(rows, "server settings", "synchronous_commit").values)
    assert.are.same({ "64MB" }, find(rows, "server pending_settings", "wal_buffers").values)
    assert.are.same({ nil, "true" }, find(rows, "host_busy", "busy").values)
    assert.are.same({ "1", "2" }, find(rows, "duckdb_settings", "threads").values)
    assert.are.same({ nil, "***" }, find(rows, "options", "pgsql-password").values)
    -- what is the same is not listed
    assert.is_nil(find(rows, "machine", "cpu_model"))
    assert.is_nil(find(rows, "options", "tables"))
    -- options first, then machine and placement
    assert.are.equal("options", rows[1].group)
  end)

  it("sums up a label's runs: one value, a median and range, or each value with its count", function()
    local function doc(mhz, busy)
      local d = fx.doc()
      d.machine.mhz_measured = mhz
      d.host_busy = { busy = busy }
      return d
    end
    local rows = differs.rows({ { doc(2400, false), doc(2500, false), doc(2450, true) }, { doc(3000, false) } })
    assert.are.same({ "2450 (2400..2500, 3 runs)", "3000" }, find(rows, "machine", "mhz_measured").values)
    assert.are.same({ "false x2, true x1", "false" }, find(rows, "host_busy", "busy").values)
    assert.are.equal(0, #differs.rows({ { fx.doc() }, { fx.doc() } }))
  end)

  it("lists a busy host's verdicts, not its figures, which differ in every run", function()
    local function doc(rq)
      local d = fx.doc()
      d.host_busy = rq and { cpu_contention = true, steal = false, run_queue_avg = rq, cpus = 2, luabench_cpu_pct = 30 + rq }
      return d
    end
    -- busy in both labels, more or less: nothing to list
    assert.are.equal(0, #differs.rows({ { doc(12.1), doc(14) }, { doc(20.5) } }))
    -- busy in some runs of one label only
    local rows = differs.rows({ { doc(12.1), doc(nil) }, { doc(nil) } })
    assert.are.equal(2, #rows)
    assert.are.same({ "true x1, - x1" }, find(rows, "host_busy", "cpu_contention").values)
    assert.are.same({ "false x1, - x1" }, find(rows, "host_busy", "steal").values)
  end)
end)
