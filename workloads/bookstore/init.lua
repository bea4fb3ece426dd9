-- bookstore: an online-bookstore workload modelled on TPC-W as simplified by OSDL DBT-1, for
-- PostgreSQL and MySQL/MariaDB, with thousands of emulated customers (--users) sharing a pool of
-- connections (--connections). Results are bogotransactions per second: not comparable to TPC-W.
--
--   luabench bookstore --items=10000 --ebs=10 --threads=4 prepare            load in parallel
--   luabench bookstore --users=1000 --connections=32 --threads=2 --ramp-up=60 --time=600 run
--   luabench bookstore --users=16 --think-time=0 --mix=browsing --time=60 run    closed loop
--   luabench bookstore check                                          invariants after runs
--   luabench bookstore cleanup
--
-- Modules: bookstore.common (model constants, random rules, settings, SQL dialects),
-- bookstore.schema, bookstore.text, bookstore.load (prepare), bookstore.interactions (the 14
-- interactions), bookstore.run (sessions and think times), bookstore.report, bookstore.check.
-- doc/workloads/bookstore.md describes options, report and deviations from TPC-W.
local common = require("bookstore.common")

-- One statistics type per interaction, in TPC-W's order.
local types = {}
for i, it in ipairs(common.INTERACTIONS) do types[i] = it.name end

require("luabench.workload").wire({
  name = "bookstore",
  common = common,
  types = types,
  commands = {
    prepare = { "bookstore.load.prepare", sysbench.cmdline.PARALLEL_COMMAND },
    check = { "bookstore.check.check" },
  },
  about = "bookstore: TPC-W-like online bookstore (DBT-1 style). Commands: prepare, run, check, cleanup, help",
  notes = {
    "prepare loads --items items and --ebs x 2880 customers with --threads threads; run drives",
    "--users emulated customers (one per thread by default) over --connections connections with",
    "think times; check verifies the invariants after runs. See doc/workloads/bookstore.md.",
  },
  drops = "bookstore tables",
  drop = { "bookstore.schema" },
  -- init reads the scale from the database, done records the run's orders for `check`.
  run = "bookstore.run",
  report = "bookstore.report",
  hooks = { run_header = function() return require("bookstore.report").header() end },
})
