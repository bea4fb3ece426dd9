#!/usr/bin/env luabench
-- A parallel `prepare` with luabench.prepare (doc/lua-api.md §5.9): thread 0 creates the
-- table, every thread loads its share of the rows with a progress line, thread 0 indexes it.
--   luabench examples/parallel_load.lua --db-driver=pgsql --rows=1000000 --threads=4 prepare
--   luabench examples/parallel_load.lua --db-driver=pgsql cleanup
sysbench.cmdline.options = { rows = { "rows to load", 100000 } }
local prepare = require("luabench.prepare")

local function load()
  local con = sysbench.sql.driver():connect()
  local n, threads, tid = sysbench.opt.rows, sysbench.opt.threads, sysbench.tid
  local L = prepare.new("kv.load", n)
  local ok, err = pcall(function()
    if tid == 0 and not prepare.table_exists(con, "kv") then
      con:query("CREATE TABLE kv (k INTEGER NOT NULL, v VARCHAR(32) NOT NULL)")
    end
    L:phase(1) -- the table exists
    con:bulk_insert_init("INSERT INTO kv (k, v) VALUES")
    local mine = 0
    for k = tid + 1, n, threads do
      con:bulk_insert_next(string.format("(%d, '%s')", k, sysbench.rand.string("@@@@@@@@@@@@")))
      mine = mine + 1
      if mine % 1000 == 0 then L:add(1000) end
    end
    con:bulk_insert_done()
    L:add(mine % 1000)
    L:phase(2) -- all rows are in
    if tid == 0 then
      L:finish()
      con:query("CREATE INDEX kv_k ON kv (k)")
      print(string.format("Loaded %d rows in %.1fs", L:rows(), L:elapsed()))
    end
  end)
  con:disconnect()
  if not ok then
    L:fail()
    error(err, 0)
  end
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS kv")
end

sysbench.cmdline.commands = { prepare = { load, sysbench.cmdline.PARALLEL_COMMAND } }
