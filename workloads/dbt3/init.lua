-- dbt3: a TPC-H-like decision-support workload in the style of OSDL DBT-3 (not audited), for
-- PostgreSQL and MySQL/MariaDB, with its own parallel, deterministic data generator.
--
--   luabench dbt3 --scale=1 --threads=8 prepare         generate and load in parallel, index, analyze
--   luabench dbt3 --threads=3 --time=0 run              power test, then throughput test (2 streams
--                                                       beside the refresh stream)
--   luabench dbt3 --tests=power --query-timeout=600 --time=0 run
--   luabench dbt3 check                                 row counts, keys, refresh invariant
--   luabench dbt3 cleanup
--
-- Modules: dbt3.common (settings, connections), dbt3.text (vocabularies), dbt3.gen (the data
-- generator), dbt3.schema, dbt3.load (prepare), dbt3.queries (the 22 queries and their
-- parameters), dbt3.run (power and throughput tests), dbt3.report, dbt3.check.
-- doc/workloads/dbt3.md describes options, report and deviations from the specification.
local common = require("dbt3.common")
local run = require("dbt3.run")

-- Statistics types Q1..Q22, RF1, RF2 (slots 1..24).
local types = {}
for i = 1, 22 do types[i] = "Q" .. i end
types[23], types[24] = "RF1", "RF2"

local function run_header()
  local s = common.settings()
  local p = run.plan()
  local sh = run.shared()
  local what = {}
  if p.power then what[#what + 1] = "power test" end
  if p.throughput then
    what[#what + 1] = string.format("throughput test (%d query stream%s, refresh stream %s)", p.streams,
      p.streams > 1 and "s" or "", p.refresh_thread and "on its own thread" or "after query stream 1 on thread 0")
  end
  local note = ""
  if sysbench.opt.time > 0 then
    note = string.format("note: --time=%d ends the run then, finished or not: give --time=0 to let every stream finish\n",
      sysbench.opt.time)
  end
  return string.format("TPC-H-like workload (DBT-3 style, not audited): scale factor %s, %s%s\n%s\n",
    common.sf_text(sh.state[0]), table.concat(what, ", then "),
    s.query_timeout > 0 and string.format(", query timeout %gs", s.query_timeout) or "", note)
end

require("luabench.workload").wire({
  name = "dbt3",
  common = common,
  types = types,
  commands = {
    prepare = { "dbt3.load.prepare", sysbench.cmdline.PARALLEL_COMMAND },
    check = { "dbt3.check.check" },
    answers = { "dbt3.answers.answers" },
    generate = { "dbt3.load.generate", sysbench.cmdline.PARALLEL_COMMAND },
    ["load-dbgen"] = { "dbt3.load.load_dbgen", sysbench.cmdline.PARALLEL_COMMAND },
  },
  about = "dbt3: TPC-H-like decision-support workload (DBT-3 style, not audited). Commands: prepare, run, check, answers, generate, load-dbgen, cleanup, help",
  notes = {
    "prepare generates and loads --scale with --threads threads (the same rows for a --rand-seed",
    "whatever the threads); run runs the power test and then the throughput test (--threads minus",
    "one query streams beside the refresh stream; give --time=0 so that no time limit cuts them);",
    "check verifies counts, keys and the refresh invariant; answers prints every query's result",
    "(to compare servers, or with --qualification the specification's answer set); generate writes the",
    "rows prepare would load to files in --generate-dir; load-dbgen loads dbgen's .tbl files from --dbgen-dir",
    "instead of generating (then answers --qualification --answers-dir=DIR checks the published answer",
    "set). See doc/workloads/dbt3.md.",
  },
  drops = "dbt3 tables",
  drop = { "dbt3.schema" },
  run = "dbt3.run",
  report = "dbt3.report",
  hooks = {
    run_header = run_header,
    report_intermediate = function(stat) run.progress_line(stat) end,
  },
})
