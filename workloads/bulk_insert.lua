-- bulk_insert: each thread appends (n, n) rows to a running multi-row INSERT into its own table
-- sbtest<tid+1>; rows are sent whenever the buffer fills and at the end. `prepare` creates one
-- table per --threads. (A legacy-style script, as in sysbench: it declares no options.)
local drv, con, bulk

local function dialect()
  local d, why = require("luabench.dialect").of(drv:name())
  if not d then error(why, 0) end
  return d
end

local function connect()
  drv = drv or sysbench.sql.driver()
  con = drv:connect()
  local d = require("luabench.dialect").of(drv:name())
  for _, sql in ipairs(d and d.session or {}) do con:query(sql) end
end

function prepare()
  connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Creating table 'sbtest%d'...", i))
    con:query(dialect().create_table_if_missing("sbtest" .. i,
      "\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id)\n"))
  end
end

function cleanup()
  connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Dropping table 'sbtest%d'...", i))
    for _, sql in ipairs(dialect().drop_tables({ "sbtest" .. i })) do con:query(sql) end
  end
end

local n = 0

function thread_init()
  connect()
  bulk = dialect().bulk_insert(con, string.format("INSERT INTO sbtest%d VALUES", sysbench.tid + 1))
end

function event()
  n = n + 1
  bulk:next(string.format("(%d, %d)", n, n))
end

function thread_done()
  bulk:done()
  con:disconnect()
end
