-- The scheduler keeps time: its wake-up lateness test runs alone (meson's e2e_alone), because on
-- a 2-CPU machine a concurrent CPU-bound spec delays the process itself, which the lateness
-- measure rightly includes (queueing behind other runnable work is part of it); what the rest of
-- the machine does is measured beside it, by one user alone.
local h = require("helpers")

describe("emulated users", function()
  it("1,000 users with a 50 ms think time on 2 threads run on schedule", function()
    local p = h.write("think.lua", "function event() luabench.think(0.05) end\n")
    -- Beside it, one user alone with the same think time: what the machine itself does to a
    -- thread's timed wake-ups at that moment (a sleeper's lateness on a busy machine), measured
    -- the same way.
    local ref = h.tmpdir() .. "/one_user.json"
    local out, err, rc = h.run(string.format("%s --users=1 --threads=1 --time=4 --output=%s run >/dev/null 2>&1 & " ..
      "%s %s --users=1000 --threads=2 --time=4 --format=json run; wait", h.q(p), h.q(ref), h.q(h.bin), h.q(p)))
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    local alone = h.json(h.read(ref)).users.wake_lateness_ms
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
    -- the scheduler adds at most 20 ms to what the machine does to a lone sleeper (on a quiet
    -- machine that is next to nothing). Those 20 ms are CPU work (the users due together run one
    -- after the other): when the workers got the CPU for only part of their runnable time (the
    -- kernel's run_delay, measured in this run), that work stretches by as much, which a lone
    -- sleeper (favoured by the scheduler at each wake-up) does not show.
    local share = (sys.process.cpu_wait_share_pct or 0) / 100
    local stretch = 1 / math.max(1 - share, 0.05)
    assert.is_true(late.p99 < 20 * stretch + 2 * alone.p99, string.format(
      "p99 wake-up lateness %.1f ms, one user alone %.1f ms, the workers waited %.0f%% of their runnable time; %s",
      late.p99, alone.p99, share * 100, busy))
    assert.are.equal(1000, doc.users.users)
    -- think time is not response time: an interaction takes far less than the 50 ms think
    assert.is_true(doc.latency_ms.avg < 25, "avg latency " .. doc.latency_ms.avg .. "; " .. busy)
  end)
end)
