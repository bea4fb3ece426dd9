-- bulk_insert: each thread appends (n, n) rows to a running multi-row INSERT into its own table
-- sbtest<tid+1>; rows are sent whenever the buffer fills and at the end. `prepare` creates one
-- table per --threads. (A legacy-style script, as in sysbench: it declares no options.)
local drv, con

local function connect()
  drv = drv or sysbench.sql.driver()
  con = drv:connect()
end

function prepare()
  connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Creating table 'sbtest%d'...", i))
    con:query(string.format([[
CREATE TABLE IF NOT EXISTS sbtest%d (
  id INTEGER NOT NULL,
  k INTEGER DEFAULT '0' NOT NULL,
  PRIMARY KEY (id)
)]], i))
  end
end

function cleanup()
  connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Dropping table 'sbtest%d'...", i))
    con:query("DROP TABLE IF EXISTS sbtest" .. i)
  end
end

local n = 0

function thread_init()
  connect()
  con:bulk_insert_init(string.format("INSERT INTO sbtest%d VALUES", sysbench.tid + 1))
end

function event()
  n = n + 1
  con:bulk_insert_next(string.format("(%d, %d)", n, n))
end

function thread_done()
  con:bulk_insert_done()
  con:disconnect()
end
