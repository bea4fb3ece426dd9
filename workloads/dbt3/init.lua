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

sysbench.cmdline.options = common.options

-- Statistics types Q1..Q22, RF1, RF2 (slots 1..24): the same ids in every state.
local TYPES = {}
for i = 1, 22 do TYPES[i] = luabench.stats.type("Q" .. i) end
TYPES[23] = luabench.stats.type("RF1")
TYPES[24] = luabench.stats.type("RF2")

local function prepare_cmd()
  require("dbt3.load").prepare()
end

local function check_cmd()
  return require("dbt3.check").check()
end

local function generate_cmd()
  require("dbt3.load").generate()
end

local function answers_cmd()
  return require("dbt3.answers").answers()
end

local function load_dbgen_cmd()
  require("dbt3.load").load_dbgen()
end

sysbench.cmdline.commands = {
  prepare = { prepare_cmd, sysbench.cmdline.PARALLEL_COMMAND },
  check = { check_cmd },
  answers = { answers_cmd },
  generate = { generate_cmd, sysbench.cmdline.PARALLEL_COMMAND },
  ["load-dbgen"] = { load_dbgen_cmd, sysbench.cmdline.PARALLEL_COMMAND },
}

function cleanup()
  local s = common.settings()
  local con = common.driver():connect()
  if not common.table_exists(con, s.t.config) then
    print(string.format("No dbt3 schema here (no table '%s'): nothing to drop", s.t.config))
    con:disconnect()
    return
  end
  print("Dropping the dbt3 tables...")
  require("dbt3.schema").drop(con)
  con:disconnect()
end

function help()
  print("dbt3: TPC-H-like decision-support workload (DBT-3 style, not audited). Commands: prepare, run, check, answers, generate, load-dbgen, cleanup, help")
  print("")
  print("dbt3 options:")
  sysbench.cmdline.print_test_options() -- ends with an empty line
  print("prepare generates and loads --scale with --threads threads (the same rows for a --rand-seed")
  print("whatever the threads); run runs the power test and then the throughput test (--threads minus")
  print("one query streams beside the refresh stream; give --time=0 so that no time limit cuts them);")
  print("check verifies counts, keys and the refresh invariant; answers prints every query's result")
  print("(to compare servers, or with --qualification the specification's answer set); generate writes the")
  print("rows prepare would load to files in --generate-dir; load-dbgen loads dbgen's .tbl files from --dbgen-dir")
  print("instead of generating (then answers --qualification --answers-dir=DIR checks the published answer")
  print("set). See doc/workloads/dbt3.md.")
end

local run = require("dbt3.run")

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

function sysbench.hooks.run_header()
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

function sysbench.hooks.report_intermediate(stat)
  run.progress_line(stat)
end

function sysbench.hooks.report_json(stat)
  return require("dbt3.report").json(stat)
end

function sysbench.hooks.report_footer(stat)
  return require("dbt3.report").footer(stat)
end

-- `luabench merge` of processes run with --instance: query streams add.
function luabench.hooks.report_merge(inputs, stat)
  return require("dbt3.report").merge(inputs, stat)
end
