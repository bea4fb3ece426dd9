-- soe.load: the `prepare` command, run by every thread (a parallel command):
--   phase 1  thread 0 creates the tables and the sequences (each starting above the keys the
--            load gives, which the scale fixes);
--   phase 2  the threads claim units of rows (soe.gen) from a shared counter, generate them and
--            stream them in (PostgreSQL COPY FROM STDIN, MySQL/MariaDB LOAD DATA LOCAL INFILE from
--            memory) or send them as multi-row INSERTs (the dialect's: INSERT ALL on Oracle);
--   phase 3  the threads claim the secondary indexes; then thread 0 refreshes the statistics,
--            records the scale and marks the schema ready.
-- Thread 0 prints the progress of all of them, with the rate and an ETA, every 2 seconds.
local common = require("soe.common")
local schema = require("soe.schema")
local gen = require("soe.gen")

local M = {}

local fmt = string.format
local concat = table.concat

local s, con, ld, tid, use_copy

-- Sends rows into table `name`, BATCH at a time joined as the driver joins them.
local BATCH = 256
local function send(name, rows)
  local n = #rows
  if n == 0 then return end
  local t = s.t[name]
  local d = common.dialect()
  if use_copy then
    con:copy_init(d.load_stream(t, schema.columns(name)))
    for i = 1, n, BATCH do con:copy_next(concat(rows, "\n", i, math.min(n, i + BATCH - 1))) end
    con:copy_done()
  else
    local b = d.bulk_insert(con, fmt("INSERT INTO %s (%s) VALUES", t, schema.columns(name)))
    for i = 1, n do b:next(rows[i]) end
    b:done()
  end
end

-- Calls work(item) for each item of `list` this thread claims from the shared counter `name`;
-- false when another thread failed.
local function claim_each(name, list, work)
  local ticket = luabench.shared(name, "uint64_t", 1)
  while not ld:failed() do
    local i = tonumber(luabench.atomic_add(ticket, 1)) + 1
    if i > #list then return true end
    work(list[i])
  end
  return false
end

-- Phase 1 (thread 0): refuse a schema that is there, create tables, sequences and the
-- configuration.
local function setup(c)
  local t = s.t
  if common.table_exists(con, t.config) then
    local cfg = common.config_read(con)
    if cfg.ready == 1 then
      common.fail("an soe schema is already loaded here (scale %g): run 'cleanup' first to load another", cfg.scale_ppm / 1e6)
    end
    common.fail("the soe schema here is half-loaded (an interrupted prepare?): run 'cleanup', then 'prepare'")
  end
  print(fmt("Creating the soe schema%s at scale %g: %d customers, %d warehouses, %d products...",
    s.prefix ~= "" and (" (prefix '" .. s.prefix .. "')") or "", s.scale, c.customers, c.warehouses, c.products))
  print(use_copy and ("Rows go in streamed through " .. common.dialect().load_stream("<table>", "<columns>"))
    or "Rows go in as multi-row INSERTs")
  schema.create(con)
  local starts = {}
  for name, max in pairs(gen.max_keys(c)) do starts[name] = max + 1 end
  schema.create_sequences(con, starts)
  common.config_set(con, "ready", 0)
  common.config_set(con, "scale_ppm", math.floor(s.scale * 1e6 + 0.5))
  for _, k in ipairs({ "customers", "warehouses", "products" }) do common.config_set(con, k, c[k]) end
  for name, max in pairs(gen.max_keys(c)) do common.config_set(con, "loaded_" .. name, max) end
  -- counters the runs add to (check reconciles them with the tables)
  for _, k in ipairs({ "logons", "logons_in_doubt", "runs" }) do common.config_set(con, k, 0) end
end

local function body(c)
  if tid == 0 then
    ld.t0 = luabench.time()
    setup(c)
  end
  ld:phase(1)
  if not claim_each("soe.load.units", gen.units(c), function(u)
    local n = 0
    for name, rows in pairs(gen.unit(c, u, use_copy)) do
      send(name, rows)
      n = n + #rows
    end
    ld:add(n)
  end) then
    error("another loader thread failed", 0)
  end
  ld:phase(2)
  local t_data = luabench.time()
  if tid == 0 then
    ld:finish()
    print(fmt("Data loaded in %.1fs (%.0f rows/s); creating the secondary indexes...", t_data - ld.t0,
      ld:rows() / math.max(t_data - ld.t0, 1e-3)))
  end
  local list = {}
  for k = 1, #schema.INDEXES do list[k] = k end
  if not claim_each("soe.load.indexes", list, function(k) schema.create_index(con, k) end) then
    error("another loader thread failed", 0)
  end
  ld:phase(3)
  if tid == 0 then
    print("Analyzing the tables...")
    schema.analyze(con)
    common.config_set(con, "ready", 1)
    local total = luabench.time() - ld.t0
    print(fmt("Prepared scale %g in %.1fs (data %.1fs, indexes and statistics %.1fs): %d rows, %.0f rows/s of data",
      s.scale, total, t_data - ld.t0, total - (t_data - ld.t0), ld:rows(), ld:rows() / math.max(t_data - ld.t0, 1e-3)))
  end
end

-- The `generate` command: the rows prepare would load, written to files in --generate-dir
-- instead (DIR/<table>.<thread>.tsv in COPY's text format, which LOAD DATA INFILE reads with its
-- defaults): for loading them with the server's own client (the bulk-load ceiling of
-- tools/bench soe) or elsewhere.
function M.generate()
  s = common.settings()
  tid = sysbench.tid
  local dir = tostring(sysbench.opt.generate_dir or "")
  if dir == "" then common.fail("generate needs --generate-dir=DIR (a directory for the table files)") end
  local c = common.scale(s.scale)
  ld = require("luabench.prepare").new("soe.generate", gen.expected_rows(c))
  local files = {}
  local ok, err = pcall(function()
    if not claim_each("soe.generate.units", gen.units(c), function(u)
      local n = 0
      for name, rows in pairs(gen.unit(c, u, true)) do
        if #rows > 0 then
          local f = files[name]
          if not f then
            local path = fmt("%s/%s.%d.tsv", dir, name, tid)
            local why
            f, why = io.open(path, "w")
            if not f then common.fail("cannot write '%s': %s", path, tostring(why)) end
            files[name] = f
          end
          f:write(concat(rows, "\n"), "\n")
          n = n + #rows
        end
      end
      ld:add(n)
    end) then
      error("another generator thread failed", 0)
    end
    for _, f in pairs(files) do f:close() end
    ld:phase(1)
    if tid == 0 then
      ld:finish()
      print(fmt("Generated scale %g into %s in %.1fs: %d rows", s.scale, dir, ld:elapsed(), ld:rows()))
    end
  end)
  if not ok then
    ld:fail()
    error(err, 0)
  end
end

function M.prepare()
  s = common.settings()
  tid = sysbench.tid
  local c = common.scale(s.scale)
  ld = require("luabench.prepare").new("soe.load", gen.expected_rows(c))
  local ok, err = pcall(function()
    con = common.open()
    local d = common.dialect()
    -- MySQL's LOAD DATA LOCAL needs local_infile on the server; without it, multi-row INSERTs.
    use_copy = d.load_stream and tostring(con:query_row(d.load_stream_enabled)) == "1" or false
    body(c)
  end)
  if con then con:disconnect() end
  if not ok then
    ld:fail() -- after the cleanup: this thread's error, the cause, is reported first
    error(err, 0)
  end
end

return M
