-- pipelined_reads.lua: a customer page that needs ten independent lookups, sent as one
-- PostgreSQL pipeline (doc/lua-api.md §1.7) instead of ten round trips. Run it near and far:
--
--   build/luabench oltp_read_only $(tools/sandbox-db env pgsql) --tables=1 prepare
--   build/luabench examples/pipelined_reads.lua $(tools/sandbox-db env pgsql) --time=10 run
--   tools/sandbox-db latency pgsql 5 sh -c \
--     'build/luabench examples/pipelined_reads.lua $LB_LATENCY_OPTS --time=10 run'
--   tools/sandbox-db latency pgsql 5 sh -c \
--     'build/luabench examples/pipelined_reads.lua $LB_LATENCY_OPTS --pipelined=off --time=10 run'
--
-- At 5 ms of round trip the pipelined page takes one round trip instead of ten; the report's
-- per-type table shows the page's latency, the SQL block counts every lookup.

sysbench.cmdline.options = {
  lookups = { "Lookups per page", 10 },
  ["table-size"] = { "Rows in sbtest1 (as prepared)", 10000 },
  pipelined = { "Send the lookups as one pipeline (off: one at a time)", true },
}

local PAGE = luabench.stats.type("Page")
local con, sel, id

function thread_init()
  con = sysbench.sql.driver():connect()
  sel = con:prepare("SELECT c FROM sbtest1 WHERE id = ?")
  id = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(id)
end

local function page_pipelined(n, size)
  local p = con:pipeline()
  for _ = 1, n do
    id:set(sysbench.rand.default(1, size))
    p:execute(sel)
  end
  local found = 0
  for _, r in ipairs(p:run()) do
    if r:fetch_row() then found = found + 1 end
  end
  return found
end

local function page_one_by_one(n, size)
  local found = 0
  for _ = 1, n do
    id:set(sysbench.rand.default(1, size))
    local rs = sel:execute()
    if rs:fetch_row() then found = found + 1 end
  end
  return found
end

function event()
  local opt = sysbench.opt
  local t0 = PAGE:start()
  local page = opt.pipelined and page_pipelined or page_one_by_one
  if page(opt.lookups, opt.table_size) ~= opt.lookups then
    error("a lookup found no row: was sbtest1 prepared with --table-size=" .. opt.table_size .. "?")
  end
  PAGE:done(t0)
end

function thread_done()
  sel:close()
  con:disconnect()
end
