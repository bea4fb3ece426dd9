-- luabench.internal.study_plan: a plan's checks, defaults and the order of its runs.
local splan = require("luabench.internal.study_plan")

local function plan(t, opts)
  return splan.normalize(t, opts or { path = "x/wal.lua", hostname = "box1" })
end

local function seq(runs)
  local out = {}
  for i, r in ipairs(runs) do
    out[i] = string.format("%s:%s%s:%s", r.configuration, r.workload, r.point and ("@" .. r.point) or "",
      r.warmup and ("w" .. r.round) or ("r" .. r["repeat"]))
  end
  return table.concat(out, " ")
end

describe("luabench.internal.study_plan", function()
  it("fills in the defaults: one configuration named after the host, 3 repeats, the plan's name", function()
    local p = assert(plan { workloads = { { args = "cpu --cpu-max-prime=20000" }, { args = "scripts/orders.lua" } } })
    assert.are.equal(3, p.repeats)
    assert.are.equal("wal", p.dir)
    assert.are.equal("box1", p.configurations[1].label)
    assert.are.same({ "cpu", "orders" }, { p.workloads[1].name, p.workloads[2].name })
    assert.are.equal("old", assert(plan({ workloads = { { args = "cpu" } } }, { hostname = "h", label = "old" })).configurations[1].label)
  end)

  it("interleaves the configurations, warm-up rounds first, a point per axis value", function()
    local p = assert(plan { repeats = 2, warmup = 1,
      configurations = { { label = "A" }, { label = "B" } },
      workloads = { { name = "w", args = "oltp_read_only --threads=4", threads = { 8, 32 } }, { args = "cpu" } } })
    local runs = splan.order(p)
    assert.are.equal("A:w@8:w1 A:w@32:w1 A:cpu:w1 B:w@8:w1 B:w@32:w1 B:cpu:w1 "
      .. "A:w@8:r1 A:w@32:r1 A:cpu:r1 B:w@8:r1 B:w@32:r1 B:cpu:r1 "
      .. "A:w@8:r2 A:w@32:r2 A:cpu:r2 B:w@8:r2 B:w@32:r2 B:cpu:r2", seq(runs))
    assert.are.equal("runs/0008-A-w-r1-t32.json", runs[8].file)
    assert.are.equal("runs/0008-A-w-r1-t32.txt", runs[8].log)
    -- the axis replaces the args' own --threads
    assert.are.same({ "oltp_read_only", "--output=f.json", "--threads=32", "run" },
      (function()
        local w = splan.run_words(p, runs[8], "f.json")
        return { w[1], w[#w - 1], w[#w - 2], w[#w] }
      end)())
    for _, word in ipairs(splan.run_words(p, runs[8])) do assert.are_not.equal("--threads=4", word) end
  end)

  it("randomizes each round's order from the seed, the same every time", function()
    local t = { repeats = 6, order = "random", seed = 7,
                configurations = { { label = "A" }, { label = "B" }, { label = "C" } }, workloads = { { args = "cpu" } } }
    local a, b = seq(splan.order(assert(plan(t)))), seq(splan.order(assert(plan(t))))
    assert.are.equal(a, b)
    -- each round has every configuration once, and not always in the same order
    local firsts = {}
    for r = 1, 6 do
      local round = {}
      for c in a:gmatch("(%u):cpu:r" .. r .. "%f[^%d]") do round[#round + 1] = c end
      table.sort(round)
      assert.are.equal("ABC", table.concat(round))
      firsts[a:match("(%u):cpu:r" .. r .. "%f[^%d]")] = true
    end
    assert.is_true(next(firsts, next(firsts)) ~= nil, a)
  end)

  it("refuses what it cannot run, naming the key", function()
    local cases = {
      { {}, "no workloads" },
      { { workloads = { { args = "cpu --output=x.json" } } }, "no --output in args" },
      { { workloads = { { args = "cpu run" } } }, "without the command ('run')" },
      { { workloads = { { args = "cpu" }, { args = "cpu" } } }, "two workloads are named 'cpu'" },
      { { workloads = { { args = "cpu", threads = { 1, 0 } } } }, "workloads[1].threads[2]" },
      { { workloads = { { args = "cpu", bound_ms = 5 } } }, "needs a concurrency axis" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a" }, {} } }, "configurations[2] has no label" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a" }, { label = "a" } } }, "labelled 'a'" },
      { { workloads = { { args = "cpu" } }, order = "abab" }, "order must be" },
      { { workloads = { { args = "cpu" } }, repeat_count = 3 }, "unknown key 'repeat_count'" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a", env = { ["1x"] = "y" } } } }, "not an environment" },
    }
    for _, c in ipairs(cases) do
      local p, err = plan(c[1])
      assert.is_nil(p)
      assert.truthy(err:find(c[2], 1, true), err)
    end
  end)

  it("masks passwords in the command text", function()
    assert.are.equal("oltp_read_only --pgsql-password=*** 'a b'",
      splan.masked({ "oltp_read_only", "--pgsql-password=hunter2", "a b" }))
  end)

  describe("the built-in machine plan", function()
    local function load(vars, opts)
      opts = opts or {}
      return splan.load("machine", { path = "machine", hostname = "box1", label = opts.label, dir = opts.dir, vars = vars or {} })
    end
    local function args(p, name)
      return table.concat(splan.find(p.workloads, "name", name).args, " ")
    end

    it("runs cpu, mbw's copies, fio's two 4K jobs and tcp_rr, each the repeats, into machine-LABEL", function()
      local p = assert(load({ net = "10.0.0.5:7000", time = "5", repeats = "4", threads = "8" }, { label = "old-box" }))
      assert.are.equal("machine-old-box", p.dir)
      assert.are.equal("old-box", p.configurations[1].label)
      assert.are.equal(4, p.repeats)
      assert.are.same({ "--time=5", "--report-interval=1", "--percentile=50,95,99" }, p.options)
      local names = {}
      for i, w in ipairs(p.workloads) do names[i] = w.name end
      assert.are.same({ "cpu", "cpu-all", "memcpy", "dumb", "mcblock", "fdatasync", "randread", "tcp_rr" }, names)
      assert.are.equal("cpu --threads=1", args(p, "cpu"))
      assert.are.equal("cpu --threads=8", args(p, "cpu-all"))
      for _, m in ipairs({ "memcpy", "dumb", "mcblock" }) do
        assert.are.equal("memory --memory-method=" .. m .. " --memory-array-size=256M --memory-runs=0", args(p, m))
      end
      -- fio --rw=readwrite --ioengine=sync --fdatasync=1 --bs=4k, on a file the first fileio
      -- workload makes and the last removes
      assert.are.equal("fileio --file-dir=. --file-num=1 --file-total-size=1G --file-test-mode=seqrw "
        .. "--file-rw-ratio=1 --file-io-mode=sync --file-block-size=4K --file-fsync-every-io --file-fsync-mode=fdatasync",
        args(p, "fdatasync"))
      assert.is_true(splan.find(p.workloads, "name", "fdatasync").prepare)
      assert.are.equal("fileio --file-dir=. --file-num=1 --file-total-size=1G --file-test-mode=rndrd "
        .. "--file-io-mode=async --iodepth=32 --file-random-map --file-extra-flags=direct --file-block-size=4K --file-fsync-freq=0",
        args(p, "randread"))
      assert.is_true(splan.find(p.workloads, "name", "randread").cleanup)
      assert.is_nil(p.configurations[1].before)
      assert.are.equal("net --mode=tcp_rr --threads=1 --host=10.0.0.5 --port=7000", args(p, "tcp_rr"))
      assert.are.same({}, p.notes)
    end)

    it("leaves tcp_rr out with a note when no net-server is given; takes a host alone or in brackets", function()
      local p = assert(load())
      assert.is_nil(splan.find(p.workloads, "name", "tcp_rr"))
      assert.truthy(p.notes[1]:find("tcp_rr left out: no net-server given", 1, true), p.notes[1])
      assert.are.equal("machine-box1", p.dir)
      assert.are.equal("net --mode=tcp_rr --threads=1 --host=db1", args(assert(load({ net = "db1" })), "tcp_rr"))
      assert.are.equal("net --mode=tcp_rr --threads=1 --host=::1 --port=9", args(assert(load({ net = "[::1]:9" })), "tcp_rr"))
    end)

    it("keeps --dir, a file directory with a space, and the other values", function()
      local p = assert(load({ file_dir = "/data/my disk", file_size = "64M", io_mode = "io_uring", iodepth = "8",
                              memory_size = "1G" }, { dir = "out" }))
      assert.are.equal("out", p.dir)
      local w = splan.find(p.workloads, "name", "randread").args
      assert.are.equal("--file-dir=/data/my disk", w[2])
      assert.are.equal("--file-total-size=64M", w[4])
      assert.truthy(args(p, "randread"):find("--file-io-mode=io_uring --iodepth=8", 1, true))
      assert.are.equal("mkdir -p '/data/my disk'", p.configurations[1].before)
      assert.truthy(args(p, "memcpy"):find("--memory-array-size=1G", 1, true))
    end)

    it("refuses a value it does not take, naming those it does", function()
      for _, c in ipairs({
        { { tme = "5" }, "the machine plan: no value named 'tme' (it takes net, time, repeats" },
        { { time = "0" }, "--set=time=0: a whole number >= 1" },
        { { repeats = "x" }, "--set=repeats=x: a whole number >= 1" },
        { { io_mode = "sync" }, "--set=io_mode=sync: async (libaio) or io_uring" },
      }) do
        local p, err = load(c[1])
        assert.is_nil(p)
        assert.truthy(err:find(c[2], 1, true), err)
      end
    end)
  end)
end)
