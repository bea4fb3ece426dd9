-- --metrics-listen against a real scraper: the Prometheus client library's parser (Python,
-- python3-prometheus-client) reads every scrape of a run on the PostgreSQL sandbox; each family
-- has HELP and TYPE, and each scrape's figures equal those of the interval they belong to in
-- the run's result file (client, per-type and server figures alike).
local h = require("helpers")

-- Debian's python3-prometheus-client is in the system's Python, which a pyenv or venv first on
-- PATH would not see.
local PYTHON = io.open("/usr/bin/python3") and "/usr/bin/python3" or "python3"

local function python_has_client()
  local ok = os.execute(PYTHON .. " -c 'import prometheus_client.parser' 2>/dev/null")
  return ok == true or ok == 0
end

local function close(a, b)
  return a ~= nil and b ~= nil and math.abs(a - b) <= 1e-9 * math.max(math.abs(a), math.abs(b), 1e-12)
end

local function value(fam, labels)
  for _, s in ipairs(fam and fam.samples or {}) do
    local match = true
    for k, v in pairs(labels or {}) do if s[2][k] ~= v then match = false end end
    if match then return s[3] end
  end
end

describe("--metrics-listen", function()
  it("rejects a value that is not [ADDR:]PORT in one line", function()
    local _, err, rc = h.run("cpu --time=1 --metrics-listen=nine run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("invalid --metrics-listen value 'nine': give [ADDR:]PORT, e.g. 9100 or 0.0.0.0:9100", 1, true), err)
  end)

  it("serves each interval's figures in the Prometheus text format, as the result file has them", function()
    local opts = h.db("pgsql")
    if not opts then pending("the pgsql sandbox is not running"); return end
    if not python_has_client() then
      assert(os.getenv("CI") ~= "true", "python3-prometheus-client is missing (tools/install-deps installs it)")
      pending("python3-prometheus-client is not installed")
      return
    end
    local dir = h.tmpdir()
    local script = h.write("metrics_tx.lua", [[
local con
local PROBE = luabench.stats.type("probe")
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  -- reads a few blocks (pg_class), so that the cache hit ratio exists
  PROBE:measure(con.query, con, "SELECT count(*) FROM pg_class")
end
function thread_done() con:disconnect() end
]])
    local json = dir .. "/metrics-run.json"
    local scraped = dir .. "/scrapes.json"
    local cmd = table.concat({ PYTHON, h.q(h.root .. "/tests/e2e/metrics_scrape.py"), h.q(scraped), h.q(h.bin),
      h.q(script), opts, "--threads=2 --time=4 --report-interval=1 --rate=200 --percentile=95",
      "--metrics-listen={port}", "--output=" .. h.q(json), "run" }, " ")
    assert(os.execute(cmd .. " >/dev/null 2>&1"))
    local s = h.json(assert(h.read(scraped)))
    assert.are.equal(0, s.rc, s.stderr)
    assert.are.same({}, s.failures)
    assert.is_truthy(s.stdout:find("Serving the interval figures for Prometheus at http://127.0.0.1:" .. s.port
      .. "/metrics (no authentication)", 1, true), s.stdout)
    assert.are.equal("closed", s.after_end, "nothing listens once the run is over")
    local r = h.json(h.read(json))
    local by_time = {}
    for _, iv in ipairs(r.intervals) do by_time[string.format("%.6f", iv.time_s)] = iv end
    local matched = 0
    for _, scrape in ipairs(s.scrapes) do
      assert.is_truthy(scrape.content_type:find("text/plain; version=0.0.4", 1, true))
      local f = scrape.families
      for name, fam in pairs(f) do
        assert.is_true(#fam.help > 0, name .. " has HELP")
        assert.is_true(fam.type == "gauge" or fam.type == "counter", name .. " has TYPE")
        assert.is_truthy(name:match("^luabench_[a-z0-9_]+$"), name)
      end
      assert.are.equal(1, value(f.luabench_up))
      local t = value(f.luabench_run_seconds)
      local iv = t and by_time[string.format("%.6f", t)]
      if iv then
        matched = matched + 1
        assert.is_true(close(iv.events_per_s, value(f.luabench_events_per_second)))
        assert.is_true(close(iv.latency_ms["95"], value(f.luabench_latency_seconds, { quantile = "0.95" }) * 1e3))
        assert.is_true(close(iv.types.probe / iv.interval_s, value(f.luabench_type_per_second, { type = "probe" })))
        assert.is_true(close(iv.server.key.commits_per_s, value(f.luabench_server_commits_per_s)))
        assert.is_true(close(iv.server.counters.xact_commit / iv.server.interval_s,
          value(f.luabench_server_counter_per_second, { name = "xact_commit" })))
        assert.is_true(value(f.luabench_events) >= iv.events, "the counter adds up the intervals")
      end
    end
    assert.is_true(matched >= 2, matched .. " scrapes matched an interval of " .. #r.intervals)
    -- the Grafana dashboard asks only for metrics that exist (InnoDB's row locks: not on PostgreSQL)
    local seen = {}
    for _, scrape in ipairs(s.scrapes) do for name in pairs(scrape.families) do seen[name] = true end end
    local dash = h.json(assert(h.read(h.root .. "/tools/grafana-luabench.json")))
    local innodb = { luabench_server_row_lock_waits_per_s = true, luabench_server_row_lock_wait_ms_per_transaction = true }
    local asked = 0
    for _, panel in ipairs(dash.panels) do
      for _, t in ipairs(panel.targets or {}) do
        local name = t.expr:match("^(luabench_[a-z0-9_]+)")
        assert.is_truthy(name, t.expr)
        assert.is_true(seen[name] or innodb[name] or false, name .. " is served")
        asked = asked + 1
      end
    end
    assert.is_true(asked >= 15)
  end)
end)
