-- `luabench study PLAN`: runs a plan's configurations x workloads x repeats in an interleaved
-- order, each run a luabench process of its own writing its result into the study's directory,
-- with a manifest rewritten after every run so that an interrupted study resumes where it
-- stopped. `luabench compare DIR` and `luabench report DIR` read the directory.
local splan = require("luabench.internal.study_plan")
local results = require("luabench.internal.results")
local metrics = require("luabench.internal.metrics")
local runstats = require("luabench.internal.runstats")
local render = require("luabench.internal.compare_text")

local M = {}

M.USAGE = [=[
Usage: luabench study PLAN [options]
       luabench study machine [--set=net=HOST[:PORT]] [--set=NAME=VALUE ...] [--label=NAME] [options]

Runs an experiment: every configuration x workload (x concurrency point) of the plan, `repeats`
times, in an interleaved order (A B, A B, ... or randomized blocks), optionally after warm-up runs
and until the headline figures are precise enough. Each run's result and output go into the
results directory, listed in DIR/manifest.json. A failed run is reported and the study goes on;
an interrupted study (Ctrl-C) resumes when run again with the same plan and directory.

Then: luabench compare DIR    (medians, intervals and verdicts, one section per workload)
      luabench report DIR -o report.html

The plan is a Lua file returning a table (doc/compare.md, "Studies"):
  return { repeats = 5, options = "--time=30",
           configurations = { { label = "A", before = "..." }, { label = "B", options = "..." } },
           workloads = { { args = "cpu --cpu-max-prime=20000" }, { args = "memory", threads = { 1, 2 } } } }

A built-in plan is given by its name instead of a file:
  machine   @DESCRIPTION@.
            Run it once on each machine, then: luabench compare DIR1 DIR2. It runs cpu (1 thread,
            then cpu-all), memory (memcpy, dumb, mcblock: mbw's methods), fileio (fdatasync: fio's
            --rw=readwrite --ioengine=sync --fdatasync=1 --bs=4k; randread: 4K O_DIRECT reads at a
            queue depth) and net tcp_rr against a `luabench net-server` when one is given. Its
            results go into machine-LABEL (LABEL: --label, else the host name). Values (--set):
@VALUES@
Options:
  --dir=DIR          the results directory (default: the plan's `dir`, else its file name)
  --label=NAME       the label of a plan with one configuration (default: the host name)
  --set=NAME=VALUE   a value for the plan, which gets them as its chunk's argument
                     (local vars = ...; vars.NAME); may be given several times
  --dry-run          print the runs in order, with their commands, and run nothing
  -h, --help         this text
]=]

-- the built-in machine plan's description and values in the text above
do
  local machine = require("luabench.internal.plans.machine")
  local lines = {}
  for _, v in ipairs(machine.VALUES) do
    lines[#lines + 1] = string.format("              %-12s %s%s", v[1], v[3], v[2] ~= "" and (" (" .. v[2] .. ")") or "")
  end
  M.USAGE = M.USAGE:gsub("@DESCRIPTION@", machine.DESCRIPTION):gsub("@VALUES@", function() return table.concat(lines, "\n") end)
end

local jstr, jnum = render.json_string, render.json_number

-- ---- the manifest ----------------------------------------------------------------------------

-- Keys in the order people read them; others after these, by name.
local function ranks(list)
  local out = {}
  for i, k in ipairs(list) do out[k] = i end
  return out
end
local KEY_ORDER = ranks { "luabench_study", "plan", "dir", "host", "created", "updated", "order", "seed",
  "repeats", "warmup", "precision", "pct", "max_repeats", "options", "notes", "configurations", "workloads", "label", "name",
  "args", "prefix", "env", "before", "after", "axis", "points", "bound_ms", "bound_percentile", "prepare",
  "cleanup", "prepared", "sessions", "started", "wall_s", "runs_wall_s", "study_wall_s", "runs" }
-- a run's keys (one line each)
local RUN_ORDER = ranks { "position", "round", "configuration", "workload", "point", "axis", "repeat", "warmup",
  "extra", "status", "file", "log", "command", "exit_code", "started", "wall_s", "error" }

local function is_list(t)
  return #t > 0 or next(t) == nil
end

local function encode(v, indent, out)
  local t = type(v)
  if v == nil then out[#out + 1] = "null"
  elseif t == "boolean" then out[#out + 1] = tostring(v)
  elseif t == "number" then out[#out + 1] = jnum(v)
  elseif t == "string" then out[#out + 1] = jstr(v)
  elseif is_list(v) then
    if #v == 0 then out[#out + 1] = "[]"; return end
    local scalars = true
    for _, x in ipairs(v) do if type(x) == "table" then scalars = false end end
    out[#out + 1] = "["
    for i, x in ipairs(v) do
      if not scalars then out[#out + 1] = "\n" .. indent .. "  " end
      encode(x, indent .. "  ", out)
      if i < #v then out[#out + 1] = scalars and ", " or "," end
    end
    out[#out + 1] = scalars and "]" or ("\n" .. indent .. "]")
  else
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    -- a run is one line: 60 runs stay readable
    local flat = v.position ~= nil
    local order = flat and RUN_ORDER or KEY_ORDER
    table.sort(keys, function(a, b)
      local ra, rb = order[a] or 1000, order[b] or 1000
      if ra ~= rb then return ra < rb end
      return a < b
    end)
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
      out[#out + 1] = (flat and (i > 1 and " " or "") or ("\n" .. indent .. "  ")) .. jstr(k) .. ": "
      encode(v[k], indent .. "  ", out)
      if i < #keys then out[#out + 1] = "," end
    end
    out[#out + 1] = flat and "}" or ("\n" .. indent .. "}")
  end
end

-- A value as JSON with its keys in reading order.
function M.encode(v)
  local out = {}
  encode(v, "", out)
  return table.concat(out)
end

local function save(ctx)
  local man = ctx.manifest
  man.updated = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local out = {}
  encode(man, "", out)
  local ok, err = require("luabench.internal.compare").write_output(ctx.dir .. "/manifest.json", table.concat(out) .. "\n")
  if not ok then error(err, 0) end
end

local function mask_command(c)
  if not c then return nil end
  return (c:gsub("([Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd][%w_]*[= ])(%S+)", "%1***"))
end

local function new_manifest(plan, path, runs, host)
  local configs, workloads = {}, {}
  for i, c in ipairs(plan.configurations) do
    local env = {}
    for k in pairs(c.env) do env[#env + 1] = k end
    table.sort(env)
    configs[i] = { label = c.label, options = splan.masked(c.options), prefix = c.prefix, env = env,
                   before = mask_command(c.before), after = mask_command(c.after) }
  end
  for i, w in ipairs(plan.workloads) do
    workloads[i] = { name = w.name, args = splan.masked(w.args), axis = w.axis, points = w.points,
                     bound_ms = w.bound_ms, bound_percentile = w.bound_percentile, prepare = w.prepare or nil,
                     cleanup = w.cleanup or nil }
  end
  return { luabench_study = 1, plan = path, dir = plan.dir, host = host, created = os.date("!%Y-%m-%dT%H:%M:%SZ"),
           order = plan.order, seed = plan.seed, repeats = plan.repeats, warmup = plan.warmup,
           precision = plan.precision, options = splan.masked(plan.options), configurations = configs,
           workloads = workloads, notes = #plan.notes > 0 and plan.notes or nil, prepared = {}, sessions = {},
           runs = runs }
end

-- A resumed study must have the same plan: the same runs at the same positions, the same
-- commands. Returns nil and what changed otherwise.
local function same_plan(man, fresh)
  for _, key in ipairs({ "repeats", "warmup", "order", "seed", "options" }) do
    if man[key] ~= fresh[key] then
      return nil, string.format("%s was %s, now %s", key, tostring(man[key]), tostring(fresh[key]))
    end
  end
  for _, pair in ipairs({ { "configurations", "label", { "options", "prefix" } }, { "workloads", "name", { "args", "axis" } } }) do
    local list, key, fields = pair[1], pair[2], pair[3]
    if #man[list] ~= #fresh[list] then
      return nil, string.format("%d %s, now %d", #man[list], list, #fresh[list])
    end
    for i, x in ipairs(fresh[list]) do
      local old = man[list][i]
      if old[key] ~= x[key] then return nil, string.format("%s %d was '%s', now '%s'", list, i, old[key], x[key]) end
      for _, f in ipairs(fields) do
        if tostring(old[f]) ~= tostring(x[f]) then
          return nil, string.format("the %s of %s '%s' were '%s', now '%s'", f, list:gsub("s$", ""), x[key],
            tostring(old[f]), tostring(x[f]))
        end
      end
      if list == "workloads" and table.concat(old.points or {}, ",") ~= table.concat(x.points or {}, ",") then
        return nil, string.format("the points of workload '%s' changed", x.name)
      end
    end
  end
  return true
end

-- ---- processes ---------------------------------------------------------------------------------

local function self_exe()
  local env = os.getenv("LUABENCH")
  if env and env ~= "" then return env end
  -- the shell's parent is this process
  local p = io.popen("readlink /proc/$PPID/exe 2>/dev/null")
  local exe = p and p:read("*l")
  if p then p:close() end
  return (exe and exe ~= "") and exe or "luabench"
end

local function hostname()
  local f = io.open("/proc/sys/kernel/hostname", "r")
  local h = f and f:read("*l")
  if f then f:close() end
  return h or "localhost"
end

-- os.execute's wait status as (exit code, or nil and the signal).
local function decode(status)
  if type(status) ~= "number" then return status and 0 or 1 end
  local sig = status % 128
  if sig ~= 0 then return nil, sig end
  return math.floor(status / 256) % 256
end

local SIGINT, SIGTERM = 2, 15

local function env_words(plan, c)
  local env = {}
  for k, v in pairs(plan.env) do env[k] = v end
  for k, v in pairs(c.env) do env[k] = v end
  local names = {}
  for k in pairs(env) do names[#names + 1] = k end
  table.sort(names)
  local out = {}
  for _, k in ipairs(names) do out[#out + 1] = splan.quote(k .. "=" .. env[k]) end
  return #out > 0 and ("env " .. table.concat(out, " ") .. " ") or ""
end

-- Runs luabench WORDS under the configuration's environment and prefix, its output to log.
-- Returns the exit code (nil and the signal when killed).
local function run_luabench(ctx, c, words, log)
  local quoted = { splan.quote(ctx.exe) }
  for _, w in ipairs(words) do quoted[#quoted + 1] = splan.quote(w) end
  local cmd = string.format("exec %s%s%s >%s 2>&1", env_words(ctx.plan, c), c.prefix and (c.prefix .. " ") or "",
    table.concat(quoted, " "), splan.quote(log))
  io.stdout:flush()
  return decode(os.execute(cmd))
end

-- A configuration's before/after command, its output appended to DIR/commands.log.
local function run_hook(ctx, c, which)
  local cmd = c[which]
  if not cmd then return true end
  local log = ctx.dir .. "/commands.log"
  local f = io.open(log, "a")
  if f then
    f:write(string.format("== %s %s of %s: %s\n", os.date("!%Y-%m-%dT%H:%M:%SZ"), which, c.label, mask_command(cmd)))
    f:close()
  end
  io.stdout:flush()
  local code, sig = decode(os.execute(string.format("%ssh -c %s >>%s 2>&1 </dev/null", env_words(ctx.plan, c),
    splan.quote(cmd), splan.quote(log))))
  if sig == SIGINT or sig == SIGTERM then return nil, "interrupted", true end
  if code ~= 0 then
    return nil, string.format("the %s command of %s failed (%s; its output is in %s)", which, c.label,
      code and ("exit code " .. code) or ("signal " .. tostring(sig)), log)
  end
  return true
end

-- The line of a run's log that says what went wrong: the last FATAL line, else the last line.
local function error_line(path)
  local f = io.open(path, "r")
  if not f then return "no output" end
  local last, fatal
  for line in f:lines() do
    if line:match("%S") then last = line end
    if line:match("^FATAL") then fatal = line end
  end
  f:close()
  return fatal or last or "no output"
end

-- ---- progress ------------------------------------------------------------------------------------

local function clock() return luabench.time() end

local function duration(s)
  s = math.floor(s + 0.5)
  if s >= 3600 then return string.format("%dh%02dm", math.floor(s / 3600), math.floor(s % 3600 / 60)) end
  if s >= 60 then return string.format("%dm%02ds", math.floor(s / 60), s % 60) end
  return string.format("%ds", s)
end

-- The expected wall time of a run: the mean of the finished runs of its workload, else of all,
-- else its --time plus a little.
local function estimate(ctx, run)
  local sum, n, all, an = 0, 0, 0, 0
  for _, r in ipairs(ctx.runs) do
    if r.wall_s and r.status == "ok" then
      all, an = all + r.wall_s, an + 1
      if r.workload == run.workload then sum, n = sum + r.wall_s, n + 1 end
    end
  end
  if n > 0 then return sum / n end
  if an > 0 then return all / an end
  for _, w in ipairs(splan.run_words(ctx.plan, run)) do
    local t = tonumber(w:match("^%-%-time=(%d+)$") or w:match("^%-%-max%-time=(%d+)$"))
    if t then return t + 1 end
  end
  return 11
end

local function eta(ctx)
  local left = 0
  for _, r in ipairs(ctx.runs) do
    if r.status ~= "ok" then left = left + estimate(ctx, r) end
  end
  return left
end

-- A workload's own headline figures as the progress line says them.
local OWN_HEADLINES = { { "tpmC", "%s tpmC" }, { "bt_per_s", "%s BT/s" }, { "copy_mib_per_second", "%s MiB/s copied" } }

-- "1234.5 transactions/s, p99 12.3 ms" (or "9.8 events/s (2510 MiB/s copied), p99 ..." with a
-- workload's own headline) from a result.
local function headline(doc)
  local tname = metrics.throughput_name({ doc })
  local own = {}
  for _, h in ipairs(OWN_HEADLINES) do
    local v = type(doc.workload_stats) == "table" and doc.workload_stats[h[1]]
    if type(v) == "number" then own[#own + 1] = string.format(h[2], render.fmt(v)) end
  end
  local parts = { string.format("%s %s%s", render.fmt(doc.rates.events_per_s), tname,
    #own > 0 and (" (" .. table.concat(own, ", ") .. ")") or "") }
  local p = doc.latency_ms and doc.latency_ms.percentiles or {}
  local key = p["99"] and "99" or p["95"] and "95"
  if key then parts[#parts + 1] = string.format("p%s %s ms", key, render.fmt(p[key])) end
  return table.concat(parts, ", ")
end

-- ---- the study -------------------------------------------------------------------------------------

local function fail(msg) return require("luabench.internal.cli").fail("study", msg, true) end

local function plural(n, word)
  return string.format("%d %s%s", n, word, n == 1 and "" or "s")
end

-- "12 runs (2 configurations x 3 workloads, 2 rounds, after 1 warm-up round)"
local function shape(plan, nruns)
  return string.format("%s (%s x %s, %s%s)", plural(nruns, "run"), plural(#plan.configurations, "configuration"),
    plural(#plan.workloads, "workload"), plural(plan.repeats, "round"),
    plan.warmup > 0 and (", after " .. plural(plan.warmup, "warm-up round")) or "")
end

local function point_text(run)
  return run.point and string.format(" %d %s", run.point, run.axis) or ""
end

-- One run: its command, its result, its status in the manifest. Returns "interrupted" when the
-- run was stopped by a signal.
local function do_run(ctx, run, index, total)
  local c = splan.find(ctx.plan.configurations, "label", run.configuration)
  local file = ctx.dir .. "/" .. run.file
  local log = ctx.dir .. "/" .. run.log
  local words = splan.run_words(ctx.plan, run, file)
  run.command = "luabench " .. splan.masked(words)
  run.started = os.date("!%Y-%m-%dT%H:%M:%SZ")
  run.status, run.error, run.exit_code = "running", nil, nil
  save(ctx)
  os.remove(file)
  io.stdout:write(string.format("[%" .. #tostring(total) .. "d/%d] %s %s%s %s: ", index, total, run.configuration,
    run.workload, point_text(run), run.warmup and ("warm-up " .. run.round) or ("r" .. run["repeat"])))
  io.stdout:flush()
  local t0 = clock()
  local code, sig = run_luabench(ctx, c, words, log)
  run.wall_s = clock() - t0
  ctx.runs_wall_s = ctx.runs_wall_s + run.wall_s
  run.exit_code = code
  local doc = results.read_json(file)
  if sig == SIGINT or sig == SIGTERM or code == 128 + SIGINT or code == 128 + SIGTERM
    or (doc and doc.status == "interrupted") then
    run.status = "interrupted"
    io.stdout:write("interrupted\n")
    save(ctx)
    return "interrupted"
  end
  if doc and (doc.status == "ok" or doc.status == "cut_off") and (code == 0 or code == 3 or code == 4) then
    run.status = "ok"
    io.stdout:write(string.format("%s (%.1f s)", headline(doc), run.wall_s))
  else
    run.status = "failed"
    run.error = sig and ("killed by signal " .. sig) or error_line(log)
    ctx.failed = ctx.failed + 1
    io.stdout:write(string.format("FAILED (%s): %s", code and ("exit code " .. code) or ("signal " .. sig), run.error))
  end
  local left = eta(ctx)
  io.stdout:write(left > 0 and string.format("; %s left\n", duration(left)) or "\n")
  save(ctx)
end

-- prepare (once per workload, before its first run).
local function ensure_prepared(ctx, run)
  local w = splan.find(ctx.plan.workloads, "name", run.workload)
  if not w.prepare then return true end
  for _, name in ipairs(ctx.manifest.prepared) do if name == w.name then return true end end
  local c = splan.find(ctx.plan.configurations, "label", run.configuration)
  local log = string.format("%s/runs/prepare-%s.txt", ctx.dir, splan.slug(w.name))
  io.stdout:write(string.format("prepare %s (%s): ", w.name, c.label))
  io.stdout:flush()
  local code, sig = run_luabench(ctx, c, splan.data_words(ctx.plan, w.name, c.label, "prepare"), log)
  if sig == SIGINT or sig == SIGTERM then return nil, "interrupted", true end
  if code ~= 0 then
    io.stdout:write("FAILED\n")
    return nil, string.format("prepare of %s failed: %s (%s)", w.name, error_line(log), log)
  end
  io.stdout:write("done\n")
  table.insert(ctx.manifest.prepared, w.name)
  save(ctx)
  return true
end

-- The workloads whose headline figures are not yet within +-pct of their median in some
-- configuration and point: a set of names.
local function imprecise(ctx)
  local pct = ctx.plan.precision.pct
  local cells = {}
  for _, r in ipairs(ctx.runs) do
    if r.status == "ok" and not r.warmup then
      local key = r.workload .. "\0" .. r.configuration .. "\0" .. tostring(r.point)
      cells[key] = cells[key] or { workload = r.workload, docs = {} }
      local doc = results.read_json(ctx.dir .. "/" .. r.file)
      if doc then table.insert(cells[key].docs, doc) end
    end
  end
  local need = {}
  for _, cell in pairs(cells) do
    for _, def in ipairs(metrics.rows(cell.docs)) do
      if def.headline then
        local vals = {}
        for _, d in ipairs(cell.docs) do
          local v = def.value(d)
          if type(v) == "number" and v == v then vals[#vals + 1] = v end
        end
        local med = runstats.median(vals)
        if #vals >= 2 and med and med ~= 0 then
          local lo, hi = runstats.median_interval(vals)
          if 100 * math.max(hi - med, med - lo) / math.abs(med) > pct then need[cell.workload] = true end
        elseif #vals < 2 then
          need[cell.workload] = true
        end
      end
    end
  end
  return need
end

local function rounds_done(runs)
  local n = 0
  for _, r in ipairs(runs) do
    if not r.warmup and r["repeat"] and r["repeat"] > n then n = r["repeat"] end
  end
  return n
end

-- Runs every run not yet ok, in order, switching configurations with their before/after.
-- Returns "interrupted" or nil.
local function execute(ctx)
  local current -- { key, config }
  local block_error
  local function leave()
    if current then
      local ok, err, stop = run_hook(ctx, current.config, "after")
      if not ok and stop then return "interrupted" end
      if not ok then io.stdout:write("WARNING: ", err, "\n") end
    end
    current = nil
  end
  local i = 1
  while true do
    local run = ctx.runs[i]
    if not run then
      if ctx.plan.precision then
        local need = imprecise(ctx)
        local done = rounds_done(ctx.runs)
        if next(need) and done < ctx.plan.precision.max_repeats then
          local names = {}
          for k in pairs(need) do names[#names + 1] = k end
          table.sort(names)
          io.stdout:write(string.format("precision: %s not within ±%g %% yet: round %d\n", table.concat(names, ", "),
            ctx.plan.precision.pct, done + 1))
          splan.extra_round(ctx.plan, ctx.runs, done + 1, need, ctx.order_state)
          save(ctx)
          run = ctx.runs[i]
        end
      end
      if not run then break end
    end
    if run.status ~= "ok" then
      local key = run.round .. (run.warmup and "w" or "r") .. "\0" .. run.configuration
      if not current or current.key ~= key then
        if leave() == "interrupted" then return "interrupted" end
        local c = splan.find(ctx.plan.configurations, "label", run.configuration)
        current = { key = key, config = c }
        local ok, err, stop = run_hook(ctx, c, "before")
        if stop then return "interrupted" end
        block_error = not ok and err or nil
        if block_error then io.stdout:write("FAILED: ", block_error, "\n") end
      end
      if not block_error then
        local ok, err, stop = ensure_prepared(ctx, run)
        if stop then return "interrupted" end
        if not ok then block_error = err; io.stdout:write("FAILED: ", err, "\n") end
      end
      if block_error then
        run.status, run.error = "failed", block_error
        ctx.failed = ctx.failed + 1
        save(ctx)
      else
        ctx.index = ctx.index + 1
        if do_run(ctx, run, ctx.index, ctx.total) == "interrupted" then return "interrupted" end
      end
    end
    i = i + 1
    ctx.total = ctx.index + (function()
      local n = 0
      for k = i, #ctx.runs do if ctx.runs[k].status ~= "ok" then n = n + 1 end end
      return n
    end)()
  end
  return leave()
end

local function cleanup(ctx)
  for _, w in ipairs(ctx.plan.workloads) do
    if w.cleanup then
      local c = ctx.plan.configurations[#ctx.plan.configurations]
      local log = string.format("%s/runs/cleanup-%s.txt", ctx.dir, splan.slug(w.name))
      local code = run_luabench(ctx, c, splan.data_words(ctx.plan, w.name, c.label, "cleanup"), log)
      if code ~= 0 then io.stdout:write(string.format("WARNING: cleanup of %s failed: %s\n", w.name, error_line(log))) end
    end
  end
end

local function dry_run(plan, runs)
  io.stdout:write(string.format("%s into %s/:\n", shape(plan, #runs), plan.dir))
  for _, r in ipairs(runs) do
    local c = splan.find(plan.configurations, "label", r.configuration)
    io.stdout:write(string.format("%4d  %s %s%s %s  %s%s%s\n", r.position, r.configuration, r.workload, point_text(r),
      r.warmup and ("warm-up " .. r.round) or ("r" .. r["repeat"]), env_words(plan, c), c.prefix and (c.prefix .. " ") or "",
      "luabench " .. splan.masked(splan.run_words(plan, r, plan.dir .. "/" .. r.file))))
  end
  return 0
end

-- `luabench study`, given its parsed command line (luabench.internal.cli): { plan, dir, label,
-- vars, dry_run }.
function M.run(a)
  local err
  local host = hostname()
  local plan
  plan, err = splan.load(a.plan, { path = a.plan, hostname = host, label = a.label, vars = a.vars, dir = a.dir })
  if not plan then return fail(err) end
  if a.dir then plan.dir = a.dir end
  local runs, state = splan.order(plan)
  for _, note in ipairs(plan.notes) do io.stdout:write("NOTE: ", note, "\n") end
  if a.dry_run then return dry_run(plan, runs) end
  local ctx = { plan = plan, dir = plan.dir:gsub("/+$", ""), exe = self_exe(), failed = 0, runs_wall_s = 0,
                order_state = state, index = 0 }
  local fresh = new_manifest(plan, a.plan, runs, host)
  if results.is_dir(ctx.dir) and results.is_study(ctx.dir) then
    local man
    man, err = results.read_manifest(ctx.dir)
    if not man then return fail(err) end
    local same, why = same_plan(man, fresh)
    if not same then
      return fail(string.format("the plan changed since %s was started (%s): give another --dir, or "
        .. "remove %s to start again", ctx.dir, why, ctx.dir))
    end
    man.prepared = man.prepared or {}
    man.sessions = man.sessions or {}
    -- the random order's state after the precision rounds already laid out: replayed
    local extra, seen = {}, {}
    for _, r in ipairs(man.runs) do
      if r.extra and not seen[r["repeat"]] then seen[r["repeat"]] = true; extra[#extra + 1] = r["repeat"] end
    end
    table.sort(extra)
    for _, rep in ipairs(extra) do splan.round(plan, rep, { extra = true, state = state }) end
    ctx.manifest = man
    local done = 0
    for _, r in ipairs(man.runs) do if r.status == "ok" then done = done + 1 end end
    io.stdout:write(string.format("study %s: resuming, %d of %d runs done\n", ctx.dir, done, #man.runs))
  else
    local ok = os.execute("mkdir -p " .. splan.quote(ctx.dir .. "/runs"))
    if ok ~= 0 and ok ~= true then return fail(string.format("cannot create '%s'", ctx.dir .. "/runs")) end
    ctx.manifest = fresh
    io.stdout:write(string.format("study %s: %s\n", ctx.dir, shape(plan, #runs)))
  end
  ctx.runs = ctx.manifest.runs
  ctx.total = 0
  for _, r in ipairs(ctx.runs) do if r.status ~= "ok" then ctx.total = ctx.total + 1 end end
  local session = { started = os.date("!%Y-%m-%dT%H:%M:%SZ") }
  table.insert(ctx.manifest.sessions, session)
  local t0 = clock()
  local ok, outcome = pcall(execute, ctx)
  session.wall_s = clock() - t0
  session.runs_wall_s = ctx.runs_wall_s
  if not ok then
    pcall(save, ctx)
    return fail(tostring(outcome))
  end
  local study_s, runs_s = 0, 0
  for _, s in ipairs(ctx.manifest.sessions) do
    study_s, runs_s = study_s + (s.wall_s or 0), runs_s + (s.runs_wall_s or 0)
  end
  ctx.manifest.study_wall_s, ctx.manifest.runs_wall_s = study_s, runs_s
  if outcome == "interrupted" then
    save(ctx)
    io.stdout:write(string.format("study %s interrupted; run the same command again to resume it\n", ctx.dir))
    return 130
  end
  cleanup(ctx)
  save(ctx)
  local okn, failed = 0, 0
  for _, r in ipairs(ctx.runs) do
    if r.status == "ok" then okn = okn + 1 elseif r.status == "failed" then failed = failed + 1 end
  end
  io.stdout:write(string.format("study %s: %s ok%s in %s (the runs %s, the study's own time %.1f %%)\n",
    ctx.dir, plural(okn, "run"), failed > 0 and string.format(", %d failed", failed) or "", duration(session.wall_s),
    duration(ctx.runs_wall_s), ctx.runs_wall_s > 0 and 100 * (session.wall_s - ctx.runs_wall_s) / ctx.runs_wall_s or 0))
  io.stdout:write(string.format("next: luabench compare %s; luabench report %s -o %s/report.html\n",
    splan.quote(ctx.dir), splan.quote(ctx.dir), splan.quote(ctx.dir)))
  if failed > 0 then
    io.stderr:write(string.format("FATAL: study: %d of %d runs failed (their errors are in %s/manifest.json)\n",
      failed, #ctx.runs, ctx.dir))
    return 1
  end
  return 0
end

return M
