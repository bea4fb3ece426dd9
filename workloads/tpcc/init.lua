-- tpcc: a TPC-C-like order-entry workload (not audited) for PostgreSQL and MySQL/MariaDB.
--
--   luabench tpcc --warehouses=10 --threads=8 prepare     load (in parallel), index, analyze
--   luabench tpcc --threads=32 --time=300 run              closed loop: tpmC, NOPM, per-type table
--   luabench tpcc --users=100 --connections=20 --wait --time=3600 run
--                                                          spec keying/think times, 10 terminals/W
--   luabench tpcc --threads=8 check                        consistency conditions (clause 3.3.2)
--   luabench tpcc cleanup
--
-- The modules: tpcc.common (settings, random rules), tpcc.schema, tpcc.load (prepare),
-- tpcc.txn (input generators, the five transactions as client-side statements), tpcc.procs (the
-- same as stored procedures), tpcc.run (terminals), tpcc.report, tpcc.check.
-- doc/workloads/tpcc.md describes options, report and deviations from the specification.
local common = require("tpcc.common")

sysbench.cmdline.options = common.options

-- Transaction types in the order of --weights; the same ids in every thread.
local TYPES = {}
for i, name in ipairs(common.TYPES) do TYPES[i] = luabench.stats.type(name) end

local function prepare_cmd()
  require("tpcc.load").prepare()
end

local function check_cmd()
  require("tpcc.check").check()
end

sysbench.cmdline.commands = {
  prepare = { prepare_cmd, sysbench.cmdline.PARALLEL_COMMAND },
  check = { check_cmd, sysbench.cmdline.PARALLEL_COMMAND },
}

function cleanup()
  local s = common.settings()
  local con = common.open()
  if not common.table_exists(con, s.t.config) then
    print(string.format("No tpcc schema here (no table '%s'): nothing to drop", s.t.config))
    con:disconnect()
    return
  end
  print("Dropping the tpcc tables and procedures...")
  require("tpcc.procs").drop(con)
  require("tpcc.schema").drop(con)
  con:disconnect()
end

function help()
  print("tpcc: TPC-C-like order-entry workload (not audited). Commands: prepare, run, check, cleanup, help")
  print("")
  print("tpcc options:")
  sysbench.cmdline.print_test_options() -- ends with an empty line
  print("prepare loads --warehouses warehouses with --threads threads (or --load-threads of them) and")
  print("resumes an interrupted load; run drives one terminal per thread, or per emulated user with")
  print("--users (--wait: 10 per warehouse);")
  print("check verifies the consistency conditions; see doc/workloads/tpcc.md.")
end

local run = require("tpcc.run")

function init()
  run.init()
end

function thread_init(tid)
  run.thread_init(tid, TYPES)
end

function event()
  return run.event()
end

function thread_done()
  run.thread_done()
end

function done()
  run.done()
end

-- Printed after the engine's run header (on the info stream: never mixed with JSON or CSV).
function sysbench.hooks.run_header()
  local s = common.settings()
  local st = run.shared()
  local W = st[0]
  local mode = s.wait and ("spec keying and think times" .. (s.wait_factor ~= 1 and (" x " .. s.wait_factor) or ""))
    or "closed loop without keying or think time"
  local note = ""
  if s.terminals * luabench.instances < W then
    local n = s.terminals * luabench.instances
    note = string.format("note: %d terminal%s have home warehouses 1..%d only; the other warehouses see remote lines and payments only\n",
      n, n > 1 and "s" or "", n)
  end
  return string.format("TPC-C-like workload (not audited): %d warehouse%s, %d terminal%s, %s\n" ..
    "mix (NewOrder,Payment,OrderStatus,Delivery,StockLevel): %s; isolation: %s; %s\n%s\n",
    W, W > 1 and "s" or "", s.terminals, s.terminals > 1 and "s" or "", mode, sysbench.opt.weights,
    s.isolation or "server default",
    s.procedures and "transactions as stored procedures" or s.pipeline and
      "transactions as client-side statements (OrderStatus, StockLevel pipelined)" or
      "transactions as client-side statements", note)
end

function sysbench.hooks.report_json(stat)
  return require("tpcc.report").json(stat)
end

function sysbench.hooks.report_footer(stat)
  return require("tpcc.report").footer(stat)
end

-- `luabench merge` of processes run with --instance: tpmC over all of them.
function luabench.hooks.report_merge(inputs, stat)
  return require("tpcc.report").merge(inputs, stat)
end
