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
local run = require("tpcc.run")

-- How the transactions run, and why not as procedures when that is the default's choice.
local function transactions_text(s)
  local procs, why = common.use_procedures()
  if procs then return "transactions as stored procedures" end
  local text = s.pipeline and "transactions as client-side statements (OrderStatus, StockLevel pipelined)" or
    "transactions as client-side statements"
  return why and string.format("%s (%s: --procedures=off by default)", text, why) or text
end

-- Printed after the engine's run header (on the info stream: never mixed with JSON or CSV).
local function run_header()
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
    transactions_text(s), note)
end

require("luabench.workload").wire({
  name = "tpcc",
  common = common,
  -- Transaction types in the order of --weights.
  types = common.TYPES,
  commands = {
    prepare = { "tpcc.load.prepare", sysbench.cmdline.PARALLEL_COMMAND },
    check = { "tpcc.check.check", sysbench.cmdline.PARALLEL_COMMAND },
  },
  about = "tpcc: TPC-C-like order-entry workload (not audited). Commands: prepare, run, check, cleanup, help",
  notes = {
    "prepare loads --warehouses warehouses with --threads threads (or --load-threads of them) and",
    "resumes an interrupted load; run drives one terminal per thread, or per emulated user with",
    "--users (--wait: 10 per warehouse);",
    "check verifies the consistency conditions; see doc/workloads/tpcc.md.",
  },
  drops = "tpcc tables and procedures",
  drop = { "tpcc.procs", "tpcc.schema" },
  run = "tpcc.run",
  report = "tpcc.report",
  hooks = { run_header = run_header },
})
