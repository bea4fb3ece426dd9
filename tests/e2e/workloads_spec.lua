-- Built-in workloads: their reports parse and carry sysbench's sections.
local h = require("helpers")

describe("built-in workloads", function()
  it("cpu", function()
    local out, err, rc = h.run("cpu --threads=2 --time=1 --cpu-max-prime=2000 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Prime numbers limit: 2000", 1, true))
    local eps = tonumber(out:match("CPU speed:\n    events per second: +([%d.]+)\n\nGeneral statistics:"))
    assert.is_true(eps and eps > 100)
  end)

  it("memory", function()
    local out, err, rc = h.run("memory --memory-block-size=4K --memory-total-size=64M --threads=2 --memory-oper=read run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Running memory speed test with the following options:\n  block size: 4KiB\n  total size: 64MiB\n  operation: read\n  scope: global", 1, true))
    local ops = tonumber(out:match("Total operations: (%d+) %("))
    assert.are.equal(64 * 1024 / 4, ops, "each thread does its share of the total size")
    assert.is_truthy(out:match("64%.00 MiB transferred %([%d.]+ MiB/sec%)"))
  end)

  it("memory prints MiB/sec intermediate lines", function()
    local out, err, rc = h.run("memory --time=2 --report-interval=1 --memory-scope=local run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:match("%[ 1s %] [%d.]+ MiB/sec\n"))
  end)

  it("threads", function()
    local out, err, rc = h.run("threads --threads=4 --time=1 --thread-yields=100 --thread-locks=2 run")
    assert.are.equal(0, rc, err)
    assert.is_true(tonumber(out:match("total number of events:%s+(%d+)")) > 10)
  end)

  it("mutex runs exactly one event per thread", function()
    local out, err, rc = h.run("mutex --threads=3 --mutex-locks=1000 --mutex-loops=100 run")
    assert.are.equal(0, rc, err)
    assert.are.equal(3, tonumber(out:match("total number of events:%s+(%d+)")))
    assert.is_truthy(out:find("events (avg/stddev):           1.0000/0.00", 1, true))
  end)

  it("memory ignores --events and stops after --memory-total-size, as sysbench", function()
    local out, err, rc = h.run("memory --events=10 --memory-total-size=8M --time=0 run")
    assert.are.equal(0, rc, err)
    assert.are.equal(8 * 1024, tonumber(out:match("total number of events:%s+(%d+)")))
  end)

  it("rejects invalid option values with one line and exit code 1", function()
    for _, c in ipairs({
      { "cpu --cpu-max-prime=-5", "FATAL: Invalid value of cpu-max-prime: -5." }, -- sysbench's
      { "cpu --cpu-max-prime=0", "FATAL: Invalid value of cpu-max-prime: 0." },
      { "threads --thread-yields=-1", "FATAL: Invalid value of thread-yields: -1 (0 or more)." },
      { "threads --thread-locks=0", "FATAL: Invalid value of thread-locks: 0 (1 or more)." },
      { "mutex --mutex-num=0", "FATAL: Invalid value of mutex-num: 0 (1 or more)." },
      { "mutex --mutex-locks=-1", "FATAL: Invalid value of mutex-locks: -1 (0 or more)." },
      { "mutex --mutex-loops=-1", "FATAL: Invalid value of mutex-loops: -1 (0 or more)." },
      { "memory --memory-block-size=3", "FATAL: Invalid value for memory-block-size: 3" }, -- sysbench's
      { "memory --memory-block-size=0", "FATAL: Invalid value for memory-block-size: 0" },
      { "memory --memory-oper=x", "FATAL: Invalid value for memory-oper: x" },
      { "memory --memory-access-mode=x", "FATAL: Invalid value for memory-access-mode: x" },
      { "memory --memory-scope=x", "FATAL: Invalid value for memory-scope: x" },
      { "memory --memory-total-size=-1", "FATAL: Invalid value for the 'memory_total_size' option: '-1'" }, -- after sysbench's own checks
    }) do
      local out, err, rc = h.run(c[1] .. " --time=1 run")
      assert.are.equal(1, rc, c[1] .. ": " .. err)
      assert.are.equal(c[2] .. "\n", err, c[1])
      assert.is_falsy(out:find("Threads started!", 1, true), c[1])
    end
  end)

  it("each has help", function()
    for _, w in ipairs({ "cpu", "memory", "threads", "mutex" }) do
      local out, err, rc = h.run(w .. " help")
      assert.are.equal(0, rc, w .. ": " .. err)
      assert.is_truthy(out:find(w .. " options:", 1, true), w)
    end
  end)
end)
