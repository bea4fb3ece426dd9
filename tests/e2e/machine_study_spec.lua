-- `luabench study machine`, the built-in machine study, as the two-machine investigation uses it
-- (doc/compare.md): run once per "machine" — here one of them confined to one CPU by taskset —
-- with runs of a second, against a net-server on loopback; every run ends well with the options
-- the plan says, the fdatasync job syncs after every I/O as fio's fdatasync=1 does, the server saw
-- every byte the tcp_rr runs sent, and compare puts the two side by side with the CPU set that
-- differs.
local h = require("helpers")

local dir = h.tmpdir() .. "/machine"
os.execute("mkdir -p " .. h.q(dir))

local free_port = h.free_port

local function allowed_cpus()
  local s = assert(h.read("/proc/self/status"))
  local list = s:match("Cpus_allowed_list:%s*(%S+)")
  local n = 0
  for range in list:gmatch("[^,]+") do
    local a, b = range:match("^(%d+)%-(%d+)$")
    n = n + (a and (tonumber(b) - tonumber(a) + 1) or 1)
  end
  return list, n
end

local function manifest(d)
  return h.json(assert(h.read(d .. "/manifest.json"), "no manifest in " .. d))
end

-- The study's results by workload name (one repeat each here).
local function results_of(d)
  local out = {}
  for _, r in ipairs(manifest(d).runs) do
    assert.are.equal("ok", r.status, r.workload .. ": " .. tostring(r.error))
    out[r.workload] = h.json(assert(h.read(d .. "/" .. r.file)))
  end
  return out
end

local TINY = "--set=time=1 --set=repeats=1 --set=file_size=8M --set=memory_size=4M"

describe("luabench study machine", function()
  it("says it leaves tcp_rr out without a net-server, and what it would run", function()
    local out, err, rc = h.run("study machine --dry-run --label=x " .. TINY)
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("NOTE: tcp_rr left out: no net-server given", 1, true), out)
    assert.truthy(out:find("7 runs (1 configuration x 7 workloads, 1 round) into machine-x/:", 1, true), out)
    assert.falsy(out:find("net --mode", 1, true), out)
    out, err, rc = h.run("study machine --set=tme=1")
    assert.are.equal(1, rc)
    assert.truthy(err:find("FATAL: study: the machine plan: no value named 'tme' (it takes net, time, repeats", 1, true), err)
  end)

  it("runs on two machines (one of them one CPU) and compare shows them side by side", function()
    local cpus, ncpus = allowed_cpus()
    local first = cpus:match("^(%d+)")
    local port = free_port()
    local log = dir .. "/server.txt"
    local pid = h.sh(string.format("timeout 120 %s net-server --host=127.0.0.1 --port=%d >%s 2>&1 & echo PID $!",
      h.q(h.bin), port, h.q(log))):match("PID (%d+)")
    local server_text
    local ok, err = pcall(function()
      h.sh("for i in $(seq 100); do grep -q listening " .. h.q(log) .. " && break; sleep 0.05; done")
      assert.truthy((h.read(log) or ""):find("listening on", 1, true), h.read(log))
      local net = string.format(" --set=net=127.0.0.1:%d ", port)
      for _, m in ipairs({ { "one-cpu", "taskset -c " .. first .. " " }, { "two-cpu", "" } }) do
        local out, rc = h.sh(string.format("cd %s && %s%s study machine --label=%s%s%s", h.q(dir), m[2], h.q(h.bin),
          m[1], net, TINY))
        assert.are.equal(0, rc, out)
        assert.truthy(out:find("study machine-" .. m[1] .. ": 8 runs ok", 1, true), out)
      end
    end)
    h.sh("kill -TERM " .. pid .. "; for i in $(seq 100); do kill -0 " .. pid .. " 2>/dev/null || break; sleep 0.05; done")
    server_text = h.read(log) or ""
    assert(ok, err)

    local one, two = dir .. "/machine-one-cpu", dir .. "/machine-two-cpu"
    local sent = 0
    for _, m in ipairs({ { one, first, 1 }, { two, cpus, ncpus } }) do
      local r = results_of(m[1])
      local names = {}
      for _, run in ipairs(manifest(m[1]).runs) do names[#names + 1] = run.workload end
      assert.are.equal("cpu cpu-all memcpy dumb mcblock fdatasync randread tcp_rr", table.concat(names, " "))
      for _, doc in pairs(r) do
        assert.are.equal(m[2], doc.placement.process_cpus)
        assert.are.equal(1, doc.options.time)
      end
      assert.are.equal(1, r.cpu.threads)
      -- every CPU the study may use: taskset's one, else all
      assert.are.equal(m[3], r["cpu-all"].threads)
      for _, method in ipairs({ "memcpy", "dumb", "mcblock" }) do
        assert.are.equal(method, r[method].workload_stats.method)
        assert.are.equal(4 * 1024 * 1024, r[method].workload_stats.array_bytes)
      end
      -- fio --rw=readwrite --ioengine=sync --fdatasync=1 --bs=4k: sequential mixed 4K I/O with a
      -- sync after every read and write (the first I/O is a write), not after writes only
      local f = r.fdatasync.workload_stats
      assert.are.same({ "seqrw", "psync", "fdatasync", true, false, 1 },
        { f.test_mode, f.engine, f.fsync_mode, f.fsync_every_io, f.direct, f.files })
      assert.are.same({ "4K", "sync" }, { r.fdatasync.options["file-block-size"], r.fdatasync.options["file-io-mode"] })
      assert.are.equal(4096, f.block_sizes[1].size)
      assert.is_true(f.read.total_ios > 0 and f.write.total_ios > 0)
      assert.are.equal(f.read.total_ios + f.write.total_ios, f.sync.total_ios)
      -- 4K random reads, O_DIRECT, 32 in flight, every block once per pass (fio's random map)
      local rr = r.randread.workload_stats
      assert.are.same({ "rndrd", "libaio", true, 32, true }, { rr.test_mode, rr.engine, rr.direct, rr.iodepth, rr.random_map })
      assert.are.equal(4096, rr.block_sizes[1].size)
      assert.is_true(rr.read.total_ios > 0)
      assert.are.equal(0, rr.write and rr.write.total_ios or 0)
      -- the file (in the current directory, as fileio's) is removed at the study's end
      assert.are.equal(".", r.randread.options["file-dir"])
      assert.is_nil(h.read(dir .. "/test_file.0"))
      local t = r.tcp_rr.workload_stats
      assert.are.same({ "tcp_rr", 1, 1, 0 }, { t.mode, t.request_bytes, t.response_bytes, t.errors })
      sent = sent + t.bytes_sent
    end
    -- the server received what both studies' tcp_rr runs sent, to the byte (one connection each)
    local conns, received = server_text:match("stopped: (%d+) connections .-, (%d+) bytes received")
    assert.are.same({ 2, sent }, { tonumber(conns), tonumber(received) }, server_text)

    -- side by side: every workload in the summary, the CPU set in what differs
    local out, cerr, rc = h.run("compare --format=json " .. h.q(one) .. " " .. h.q(two))
    assert.are.equal(0, rc, cerr)
    local c = h.json(out)
    assert.are.same({ "one-cpu", "two-cpu" }, { c.inputs[1].label, c.inputs[2].label })
    assert.are.same({ "cpu", "cpu-all", "memcpy", "dumb", "mcblock", "fdatasync", "randread", "tcp_rr" }, c.workloads)
    local seen = {}
    for _, row in ipairs(c.summary) do seen[row.workload] = true end
    for _, w in ipairs(c.workloads) do assert.is_true(seen[w], w .. " has no summary row") end
    local differs = {}
    for _, d in ipairs(c.differs) do differs[d.group .. " " .. d.name .. " " .. (type(d.workload) == "string" and d.workload or "*")] = d.values end
    if ncpus > 1 then
      assert.are.same({ first, cpus }, differs["placement process_cpus *"])
      assert.are.same({ "1", tostring(ncpus) }, differs["placement usable_cpus *"])
      assert.are.same({ "1", tostring(ncpus) }, differs["options threads cpu-all"])
    end
    out = h.run("compare " .. h.q(one) .. " " .. h.q(two))
    assert.truthy(out:find("\nwhat differs:\n", 1, true), out)
    assert.truthy(out:find("\n  placement\n", 1, true), out)
  end)
end)
