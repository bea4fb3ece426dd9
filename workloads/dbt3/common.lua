-- dbt3.common: what prepare, run and check share: validated settings, table names, the
-- configuration table, connections, and the scale factor's cardinalities (TPC-H clause 4.2.5).
local workload = require("luabench.workload")

local M = {}

-- Dependency order: children first (the order DROP TABLE needs when foreign keys exist).
M.TABLES = { "lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region" }

-- The seed of an unseeded (--rand-seed=0) prepare and run: the data set is the same every time
-- unless a seed is asked for, so results of two loads compare.
M.DEFAULT_SEED = 19920101

M.options = {
  scale = { "Scale factor (SF), 0.01 .. 1000: 1 is ~1 GB of data, 6M lineitems. prepare and generate: what to make; run, check and answers read it from the loaded schema", 1.0 },
  tests = { "run: which tests: both (power, then throughput), power or throughput", "both" },
  streams = { "run: query streams of the throughput test (0 = --threads minus one for the refresh stream, at least 1)", 0, sysbench.cmdline.ARG_INT },
  ["query-timeout"] = { "run, answers: statement timeout of every query in seconds, fractions allowed (0 = none); a query that hits it is reported as timed out and its stream goes on. Refresh functions run without it", 0 },
  ["load-threads"] = { "prepare: threads that load (0 = all --threads; at most --threads)", 0, sysbench.cmdline.ARG_INT },
  ["table-prefix"] = { "Prefix of every table name (to keep several schemas in one database)", "" },
  qualification = { "run, answers: use the specification's validation parameters (clause 2.4.x.4) in every stream instead of drawn ones (answers: to compare with its SF 1 answer set)", false },
  ["answers-stream"] = { "answers: the query stream whose parameters to use (0 = the power test's)", 0, sysbench.cmdline.ARG_INT },
  ["answers-dir"] = { "answers: compare every query's rows with the TPC-H kit's answer files in this directory (q1.out .. q22.out, colprecision.txt) under the specification's precision rules; exit 1 if any differs", "" },
  ["dbgen-dir"] = { "load-dbgen: the directory of dbgen's (or tpchgen-cli's) table files: <table>.tbl, or <table>.tbl.<n> / <table>/<table>.<n>.tbl parts", "" },
  ["generate-dir"] = { "generate: the directory to write the table files to", "" },
  checksum = { "check: also print a checksum of every table's rows (reads every row: slow above SF 1)", false },
}

local fail = workload.fail
M.fail = fail

-- A scale factor as the text the configuration table and the report show: 0.01, 1, 10.
function M.sf_text(sf)
  return (string.format("%.4f", sf):gsub("0+$", ""):gsub("%.$", ""))
end

-- Cardinalities of the base tables at scale factor sf (clause 4.2.5); lineitem's is about
-- 4 x orders, known only once generated.
function M.sizes(sf)
  local z = {
    part = math.floor(sf * 200000), supplier = math.floor(sf * 10000),
    customer = math.floor(sf * 150000), orders = math.floor(sf * 1500000),
    nation = 25, region = 5,
  }
  z.partsupp = 4 * z.part
  return z
end

-- The options, checked once per Lua state. Errors are one line, without a traceback.
function M.settings()
  if M.s then return M.s end
  local opt = sysbench.opt
  local s = {}
  s.scale = tonumber(opt.scale)
  if not s.scale or s.scale < 0.01 or s.scale > 1000 then
    fail("invalid --scale value '%s' (expected a scale factor 0.01 .. 1000)", tostring(opt.scale))
  end
  s.test = tostring(opt.tests):lower()
  if s.test ~= "both" and s.test ~= "power" and s.test ~= "throughput" then
    fail("invalid --tests value '%s' (expected both, power or throughput)", tostring(opt.tests))
  end
  s.threads = opt.threads
  s.streams = opt.streams
  if s.streams < 0 or s.streams ~= math.floor(s.streams) then
    fail("invalid --streams value '%s' (expected 0 or more)", tostring(opt.streams))
  end
  s.query_timeout = tonumber(opt.query_timeout)
  if not s.query_timeout or s.query_timeout < 0 then
    fail("invalid --query-timeout value '%s' (expected seconds >= 0)", tostring(opt.query_timeout))
  end
  s.load_threads = workload.load_threads(opt.load_threads, s.threads, "prepare")
  local seed = tonumber(opt.rand_seed) or 0
  s.seed = seed ~= 0 and seed or M.DEFAULT_SEED
  s.seed_given = seed ~= 0
  s.qualification = opt.qualification
  s.checksum = opt.checksum
  s.generate_dir = tostring(opt.generate_dir)
  s.answers_dir = tostring(opt.answers_dir)
  s.dbgen_dir = tostring(opt.dbgen_dir)
  s.answers_stream = opt.answers_stream
  if s.answers_stream < 0 then fail("invalid --answers-stream value '%s' (expected 0 or more)", tostring(opt.answers_stream)) end
  s.prefix = opt.table_prefix
  s.t = workload.tables(s.prefix, M.TABLES, "dbt3_config")
  M.s = s
  return s
end

-- Connections -----------------------------------------------------------------------------------

local wl = workload.new("dbt3")
M.driver, M.dialect, M.connect, M.open = wl.driver, wl.dialect, wl.connect, wl.open

M.table_exists = require("luabench.prepare").table_exists
M.rows = workload.rows

-- The configuration table: name/value pairs written by prepare (scale, seed, ready).
function M.config_read(con) return workload.config_read(con, M.settings().t.config) end
function M.config_set(con, name, value) workload.config_set(con, M.settings().t.config, name, value) end

-- The configuration of a completely prepared schema, or a one-line error.
function M.ready_config(con)
  return workload.ready_config(con, "dbt3", M.settings().t.config, "run 'cleanup', then 'prepare'",
    { "scale", "seed" })
end

-- Sets the session's statement timeout (seconds; 0: none) between statements. On PostgreSQL a
-- timeout that fires as a statement ends stays pending and cancels the next statement instead
-- ("canceling statement due to user request", 57014), and the SET itself runs under the timeout
-- it replaces: with a timeout of a millisecond on a loaded machine either can cut this SET, which
-- then runs again.
function M.set_timeout(con, d, secs)
  for _ = 1, 4 do
    local ok, err = pcall(con.query, con, d.statement_timeout(secs))
    if ok then return end
    if not d.is_timeout(con) then error(err, 0) end
  end
  con:query(d.statement_timeout(secs))
end

-- Q15's view for stream `stream` ($view in queries.lua): one per stream, so that streams
-- running Q15 at once do not collide; t is settings().t.
function M.q15_view(t, stream)
  return (t.config:gsub("dbt3_config$", "")) .. "dbt3_revenue" .. stream
end

-- A run killed inside Q15 leaves its view: that stream's next Q15 then fails to create it
-- ("already exists"), and PostgreSQL refuses to drop lineitem under it. The configuration
-- records the most streams any run had, so that every view a run may have left is dropped: at
-- the start of each run (streams: this run's, recorded before any Q15 runs) and by cleanup.
local Q15_STREAMS = "q15_streams"

function M.drop_q15_views(con, streams)
  local t = M.settings().t
  local recorded = tonumber(M.config_read(con)[Q15_STREAMS]) or 0
  for k = 0, math.max(recorded, streams or 0) do
    con:query("DROP VIEW IF EXISTS " .. M.q15_view(t, k))
  end
  if streams and streams > recorded then M.config_set(con, Q15_STREAMS, streams) end
end

-- Drops the view of a Q15 that failed (its last statement, drop_sql). With a statement timeout
-- (secs) the DROP runs without it: a millisecond's timeout can cut the DROP too, and the view
-- left behind fails every later Q15 ("View with name dbt3_revenue0 already exists").
function M.drop_q15_view(con, d, drop_sql, secs)
  if secs then M.set_timeout(con, d, 0) end
  pcall(con.query, con, drop_sql)
  if secs then M.set_timeout(con, d, secs) end
end

return M
