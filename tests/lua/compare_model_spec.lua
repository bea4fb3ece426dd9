-- luabench.internal.compare_model: labels of several runs, pairing by workload and product, the two
-- verdict rules, the summary, the event-time breakdown and a concurrency axis.
local model = require("luabench.internal.compare_model")
local fx = require("lua.result_fixture")

local function row(rows, name)
  for _, r in ipairs(rows) do if r.name == name then return r end end
  error("no row " .. name)
end

local function concat(...)
  local out = {}
  for _, list in ipairs({ ... }) do for _, x in ipairs(list) do out[#out + 1] = x end end
  return out
end

describe("luabench.internal.compare_model", function()
  it("takes the median of a label's runs and judges by the spread between them", function()
    local a = fx.runs("A", { fx.doc { tps = 100 }, fx.doc { tps = 104 }, fx.doc { tps = 98 }, fx.doc { tps = 101 } })
    local b = fx.runs("B", { fx.doc { tps = 130 }, fx.doc { tps = 128 }, fx.doc { tps = 135 }, fx.doc { tps = 131 } })
    local m = assert(model.build(concat(a, b)))
    assert.is_true(m.multi)
    assert.are.equal("between-runs", m.rule_kind)
    assert.are.same({ 4, 4 }, { m.inputs[1].runs, m.inputs[2].runs })
    local tps = row(m.sections[1].rows, "transactions/s")
    assert.are.same({ 100.5, 130.5 }, tps.values)
    assert.are.equal(130.5 / 100.5, tps.ratios[2])
    assert.are.equal(true, tps.significant[2])
    assert.is_true(math.abs(tps.p[2] - 2 / 70) < 1e-12)
    assert.are.equal("between", tps.rules[2])
    assert.is_true(tps.ratio_intervals[2][1] > 1)
    -- the summary holds the headline figures: throughput, p95 (no p99 in these), MiB/s when non-zero
    local names = {}
    for _, r in ipairs(m.summary) do names[#names + 1] = r.name end
    assert.are.same({ "transactions/s", "p95" }, names)
  end)

  it("says too few runs for the rank test, how many it takes, and decides by the small-sample rule", function()
    local a = fx.runs("A", { fx.doc { tps = 100 }, fx.doc { tps = 101 }, fx.doc { tps = 99 } })
    local b = fx.runs("B", { fx.doc { tps = 150 }, fx.doc { tps = 151 }, fx.doc { tps = 149 } })
    local m = assert(model.build(concat(a, b)))
    local tps = row(m.sections[1].rows, "transactions/s")
    assert.are.equal(true, tps.significant[2])
    assert.is_true(m.sections[1].too_few and m.sections[1].small_sample)
    assert.are.equal(4, m.sections[1].runs_needed)
    assert.truthy(model.few_runs_note(m, m.sections[1]):find("small-sample rule", 1, true))
    -- overlapping runs: ~ whatever the t-test says
    b = fx.runs("B", { fx.doc { tps = 150 }, fx.doc { tps = 151 }, fx.doc { tps = 100.5 } })
    m = assert(model.build(concat(a, b)))
    assert.are.equal(false, row(m.sections[1].rows, "transactions/s").significant[2])
    -- two runs against one: too few for either rule
    m = assert(model.build(concat(a, { b[1] })))
    assert.are.equal(false, row(m.sections[1].rows, "transactions/s").significant[2])
    assert.truthy(model.few_runs_note(m, m.sections[1]):find("too few to find a difference", 1, true))
  end)

  it("keeps the within-run rule for one run per label", function()
    local m = assert(model.build({ fx.input("a", { fx.doc { tps = 1000, per_interval = { 990, 1010, 1000 } } }),
                                   fx.input("b", { fx.doc { tps = 1500, per_interval = { 1490, 1510, 1500 } } }) }))
    assert.are.equal("within-run", m.rule_kind)
    local tps = row(m.sections[1].rows, "transactions/s")
    assert.are.equal("within", tps.rules[2])
    assert.are.equal(true, tps.significant[2])
  end)

  it("pairs by workload and refuses inputs of different workloads", function()
    local a = concat(fx.runs("A", { fx.doc { workload = "cpu", tps = 10 } }), fx.runs("A", { fx.doc { workload = "/x/y/memory.lua", tps = 5 } }))
    local b = concat(fx.runs("B", { fx.doc { workload = "cpu", tps = 20 } }), fx.runs("B", { fx.doc { workload = "memory", tps = 6 } }))
    local m = assert(model.build(concat(a, b)))
    assert.are.same({ "cpu", "memory" }, m.workloads)
    assert.are.equal(2, #m.sections)
    assert.are.equal(2, row(m.sections[1].rows, "transactions/s").ratios[2])
    assert.are.equal(1.2, row(m.sections[2].rows, "transactions/s").ratios[2])
    local none, err = model.build({ fx.input("c", { fx.doc { workload = "cpu" } }), fx.input("m", { fx.doc { workload = "memory" } }) })
    assert.is_nil(none)
    assert.truthy(err:find("cpu (only in c: c.json), memory (only in m: m.json)", 1, true), err)
  end)

  it("compares different server products by the client's figures only, with a note", function()
    local srv = { key = { commits_per_s = 100 }, settings = { x = "1" } }
    local m = assert(model.build({ fx.input("pg", { fx.doc { server_version = "PostgreSQL 16.1", server = srv } }),
                                   fx.input("maria", { fx.doc { server_version = "10.11.6-MariaDB", server = srv } }) }))
    assert.truthy(m.notes[1]:find("pg PostgreSQL, maria MariaDB", 1, true), m.notes[1])
    for _, r in ipairs(m.sections[1].rows) do assert.are_not.equal("server", r.group) end
    assert.is_nil(m.settings)
  end)

  it("breaks the change of the mean event time down by type", function()
    local function typed(upd_ms, sel_ms, avg)
      return fx.doc { avg = avg or upd_ms + sel_ms + 0.5, types = {
        update = { count = 10000, mix_pct = 50, per_s = 10, latency_ms = { avg = upd_ms, max = 1, percentiles = {} } },
        select = { count = 5000, mix_pct = 50, per_s = 10, latency_ms = { avg = sel_ms, max = 1, percentiles = {} } } } }
    end
    -- 10000 events (the fixture's counters): an update in each, a select in every other one
    local m = assert(model.build({ fx.input("a", { typed(10, 2) }), fx.input("b", { typed(40, 2) }) }))
    local b = m.breakdowns[1]
    assert.are.equal("type", b.by)
    assert.are.same({ "update", "select", "outside the types" }, { b.rows[1].name, b.rows[2].name, b.rows[3].name })
    assert.are.same({ 10, 40 }, b.rows[1].values)
    assert.are.same({ 1, 1 }, b.rows[2].values) -- half the events x 2 ms
    assert.are.same({ 1.5, 1.5 }, b.rows[3].values) -- 12.5 - 10 - 1
    assert.are.equal(30, b.rows[1].deltas[2])
    assert.are.equal(100, b.rows[1].shares[2])
    assert.are.same({ 12.5, 42.5 }, b.total.values)
    -- parts that add up to more than the events' time (fsyncs outside the requests): none
    local m2 = assert(model.build({ fx.input("a", { typed(10, 2, 4) }), fx.input("b", { typed(40, 2, 41) }) }))
    for _, x in ipairs(m2.breakdowns) do assert.are_not.equal("type", x.by) end
  end)

  it("names the peak and the most sessions under the bound on a concurrency axis", function()
    local function runs(label, curve)
      local out = {}
      for rep = 1, 4 do
        for conc, v in pairs(curve) do
          local d = fx.doc { threads = conc, tps = v[1] + rep, p99 = v[2] }
          out[#out + 1] = { label = label, path = label .. rep .. conc, kind = "run", doc = d, rep = rep, axis = true,
                            bound = { key = "99", ms = 50 }, points = { { conc = conc, doc = d } } }
        end
      end
      return out
    end
    local m = assert(model.build(concat(runs("A", { [8] = { 1000, 20 }, [16] = { 1500, 45 }, [32] = { 1400, 90 } }),
                                        runs("B", { [8] = { 1000, 20 }, [16] = { 2000, 30 }, [32] = { 2100, 48 } }))))
    assert.are.equal(3, #m.sections)
    local peak, under = m.summary[1], m.summary[2]
    assert.are.equal("peak transactions/s", peak.name)
    assert.are.same({ 1502.5, 2102.5 }, peak.values)
    assert.are.equal(true, peak.significant[2])
    assert.are.equal("threads with p99 <= 50 ms", under.name)
    assert.are.same({ 16, 32 }, under.values)
  end)

  it("takes the k-th run of a label at each point as its k-th repeat", function()
    local function run(label, conc, tps)
      local d = fx.doc { threads = conc, tps = tps }
      return { label = label, path = label .. conc .. tps, kind = "run", doc = d, points = { { conc = conc, doc = d } } }
    end
    -- runs given point by point: 8, 32, 8, 32 threads
    local m = assert(model.build({ run("A", 8, 100), run("A", 32, 300), run("A", 8, 110), run("A", 32, 320),
                                   run("B", 8, 100), run("B", 32, 200), run("B", 8, 105), run("B", 32, 210) }))
    assert.are.equal(2, #m.sections)
    assert.are.same({ { 300, 320 }, { 200, 210 } }, m.summary[1].samples)
  end)

  it("picks the median run of each label for the charts", function()
    local a = fx.runs("A", { fx.doc { tps = 100 }, fx.doc { tps = 300 }, fx.doc { tps = 200 } })
    local groups = model.chart_groups(concat(a, fx.runs("B", { fx.doc { tps = 5 } })))
    assert.are.equal(1, #groups)
    assert.are.equal(200, groups[1].inputs[1].doc.rates.events_per_s)
    assert.are.equal("B", groups[1].inputs[2].label)
  end)

  it("notes the runs during which the host was busy, with how busy", function()
    local function doc(tps, rq, use)
      local d = fx.doc { tps = tps }
      d.host_busy = rq and { cpu_contention = true, steal = false, run_queue_avg = rq, cpus = 2, threads = 2,
                             luabench_cpu_pct = use, capacity_pct = 200 }
      return d
    end
    local m = assert(model.build(concat(fx.runs("A", { doc(100, 12.5, 50), doc(101) }), fx.runs("B", { doc(150, 20, 30) }))))
    assert.are.same({ "the host was busy in 2 of 3 runs (A 1, B 1): run queue 12.5..20.0 on 2 CPUs, luabench 15..25 % "
      .. "of the CPU its threads could use; such figures measure what else ran as much as the machine" }, m.notes)
    m = assert(model.build(concat(fx.runs("A", { doc(100) }), fx.runs("B", { doc(150) }))))
    assert.are.same({}, m.notes)
  end)

  it("lists what differs group by group, rows every workload shares once", function()
    local function doc(workload, cpus, extra)
      local d = fx.doc { workload = workload }
      d.placement = { process_cpus = cpus, usable_cpus = #cpus == 1 and 1 or 2, threads = { { thread = 0, cpus = cpus } } }
      if extra then
        for k = 1, 6 do d.options["o" .. k] = extra .. k end
        d.machine.cpu_model = "CPU " .. extra
      end
      return d
    end
    local m = assert(model.build(concat(fx.runs("A", { doc("cpu", "0", "a"), doc("memory", "0") }),
                                        fx.runs("B", { doc("cpu", "0-1", "b"), doc("memory", "0-1") }))))
    local got = {}
    for i, r in ipairs(m.differs) do got[i] = (r.workload or "*") .. " " .. r.group .. " " .. r.name end
    assert.are.same({ "* placement process_cpus", "* placement threads.1.cpus", "* placement usable_cpus",
                      "cpu options o1", "cpu options o2", "cpu options o3", "cpu options o4", "cpu options o5",
                      "cpu options o6", "cpu machine cpu_model" }, got)
  end)
end)
