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

sysbench.cmdline.options = common.options

-- One statistics type per interaction, in TPC-W's order: the same ids in every state.
local TYPES = {}
for i, it in ipairs(common.INTERACTIONS) do TYPES[i] = luabench.stats.type(it.name) end

local function prepare_cmd()
  require("bookstore.load").prepare()
end

local function check_cmd()
  return require("bookstore.check").check()
end

sysbench.cmdline.commands = {
  prepare = { prepare_cmd, sysbench.cmdline.PARALLEL_COMMAND },
  check = { check_cmd },
}

function cleanup()
  local s = common.settings()
  local con = common.open()
  if not common.table_exists(con, s.t.config) then
    print(string.format("No bookstore schema here (no table '%s'): nothing to drop", s.t.config))
    con:disconnect()
    return
  end
  print("Dropping the bookstore tables...")
  require("bookstore.schema").drop(con)
  con:disconnect()
end

function help()
  print("bookstore: TPC-W-like online bookstore (DBT-1 style). Commands: prepare, run, check, cleanup, help")
  print("")
  print("bookstore options:")
  sysbench.cmdline.print_test_options() -- ends with an empty line
  print("prepare loads --items items and --ebs x 2880 customers with --threads threads; run drives")
  print("--users emulated customers (one per thread by default) over --connections connections with")
  print("think times; check verifies the invariants after runs. See doc/workloads/bookstore.md.")
end

local run = require("bookstore.run")

sysbench.hooks.sql_error_ignorable = run.sql_error_ignorable

-- Control state, before the workers: the scale comes from the database.
function init()
  local s = common.settings()
  local con = common.open()
  local cfg = common.config_read(con)
  con:disconnect()
  if cfg.loaded ~= 1 then
    common.fail("the bookstore load did not complete (prepare interrupted?): run cleanup, then prepare")
  end
  local sh = run.shared_config()
  sh[0], sh[1], sh[2], sh[3] = cfg.items, cfg.ebs, cfg.customers, 1
  if s.items ~= cfg.items or s.ebs ~= cfg.ebs then
    if sysbench.opt.items ~= 10000 or sysbench.opt.ebs ~= 10 then
      io.stderr:write(string.format("NOTE: the database holds %d items and %d EBs; --items and --ebs only apply to prepare\n",
        cfg.items, cfg.ebs))
    end
  end
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

-- Control state, after the run: the committed Buy Confirms and new customers go to the
-- configuration table, where `check` reconciles them with the tables.
function done()
  local threads = sysbench.opt.threads
  local st = run.stats_array(threads)
  local bc, nc = 0, 0
  for t = 0, threads - 1 do
    bc = bc + st[t * run.SLOTS + run.BC_COMMITTED]
    nc = nc + st[t * run.SLOTS + run.NEW_CUSTOMERS]
  end
  local ok, err = pcall(function()
    local con = common.open()
    common.config_add(con, "bc_committed", bc)
    common.config_add(con, "new_customers", nc)
    common.config_add(con, "runs", 1)
    con:disconnect()
  end)
  if not ok then
    io.stderr:write("ALERT: could not record the run's Buy Confirms and new customers for 'check': " .. tostring(err) .. "\n")
  end
end

function sysbench.hooks.run_header()
  return require("bookstore.report").header()
end

function sysbench.hooks.report_json(stat)
  return require("bookstore.report").json(stat)
end

function sysbench.hooks.report_footer(stat)
  return require("bookstore.report").footer(stat)
end

-- `luabench merge` of processes that ran together: BT/s and the table over all of them.
function luabench.hooks.report_merge(inputs, stat)
  return require("bookstore.report").merge(inputs, stat)
end
