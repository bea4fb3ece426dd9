-- The scheduler keeps time: its wake-up lateness test runs alone (meson's e2e_alone), because on
-- a 2-CPU machine a concurrent CPU-bound spec delays the process itself, which the lateness
-- measure rightly includes (queueing behind other runnable work is part of it).
local h = require("helpers")

describe("emulated users", function()
  it("1,000 users with a 50 ms think time on 2 threads run on schedule", function()
    local p = h.write("think.lua", "function event() luabench.think(0.05) end\n")
    local out, err, rc = h.run(h.q(p) .. " --users=1000 --threads=2 --time=4 --format=json run")
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    -- when it fails, say what else the machine was doing
    local sys = doc.system
    local busy = string.format("machine: user %.0f%% system %.0f%% steal %.0f%%, run queue avg %s max %s",
      sys.cpu_pct.user, sys.cpu_pct.system, sys.cpu_pct.steal, sys.run_queue.avg, sys.run_queue.max)
    -- every user completes one interaction per cycle: 50 ms of think time, then the wake-up's
    -- lateness and the interaction itself (both as measured in this run: on a busy machine
    -- they grow, and the users fall behind by exactly that much)
    local late = doc.users.wake_lateness_ms
    local hist, late_ns, wakes = doc.users.wake_lateness_histogram, 0, 0
    for _, b in ipairs(hist.buckets) do late_ns, wakes = late_ns + b[1] * b[2], wakes + b[2] end
    local cycle_s = 0.05 + late_ns / wakes / 1e9 + doc.latency_ms.avg / 1e3
    local expected = 1000 * doc.time_s / cycle_s
    assert.is_true(math.abs(doc.counters.events - expected) / expected < 0.03,
      string.format("%d events, expected %.0f (a cycle of %.2f ms); %s", doc.counters.events, expected,
        cycle_s * 1e3, busy))
    assert.is_true(late.p99 < 20, "p99 wake-up lateness " .. late.p99 .. " ms; " .. busy)
    assert.are.equal(1000, doc.users.users)
    -- think time is not response time
    assert.is_true(doc.latency_ms.avg < 5, "avg latency " .. doc.latency_ms.avg .. "; " .. busy)
  end)
end)
