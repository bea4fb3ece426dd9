-- soe: Swingbench's Order Entry benchmark (SOE), the nine client-side transactions with its
-- default weights and think times, for PostgreSQL, MySQL/MariaDB, SQLite and, through ODBC,
-- the Oracle dialect (sequences, SYSDATE, DUAL). Long or short sessions with --logon.
--
--   luabench soe --scale=0.1 --threads=4 prepare                  load in parallel, index, analyze
--   luabench soe --users=200 --threads=2 --time=300 run           emulated users (Swingbench's)
--   luabench soe --users=200 --logon=per-transaction --time=300 run      a session per transaction
--   luabench soe --threads=16 --weights=BP:80,OP:10 --time=60 run        sysbench-style threads
--   luabench soe check                                            consistency conditions
--   luabench soe cleanup
--
-- Modules: soe.common (transactions, options, scale, names), soe.schema, soe.gen (the data
-- generator), soe.load (prepare), soe.txn (the nine transactions), soe.mix (the chooser),
-- soe.run, soe.report, soe.check. doc/workloads/soe.md compares it with Swingbench.
local common = require("soe.common")

local types = {}
for i, t in ipairs(common.TXNS) do types[i] = t.name end

require("luabench.workload").wire({
  name = "soe",
  common = common,
  types = types,
  commands = {
    prepare = { "soe.load.prepare", sysbench.cmdline.PARALLEL_COMMAND },
    check = { "soe.check.check" },
    generate = { "soe.load.generate", sysbench.cmdline.PARALLEL_COMMAND },
  },
  about = "soe: Swingbench's Order Entry (SOE) workload. Commands: prepare, run, check, generate, cleanup, help",
  notes = {
    "prepare loads --scale (1 = about Swingbench's 1 GB) with --threads threads; run drives one user",
    "per thread, or --users emulated users over --connections connections; --logon=per-transaction",
    "opens a database session for each transaction; check verifies the consistency conditions;",
    "generate writes prepare's rows to files in --generate-dir instead.",
    "See doc/workloads/soe.md.",
  },
  drops = "soe tables and sequences",
  drop = { "soe.schema" },
  run = "soe.run",
  report = "soe.report",
  hooks = { run_header = function() return require("soe.report").header() end },
})
