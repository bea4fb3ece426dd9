-- A study's plan (doc/compare.md, "The plan"): a Lua file returning a table of configurations,
-- workloads and repeats. This module reads and checks it and lays out the runs in order; it
-- runs nothing (study.lua does).
local M = {}

M.DEFAULT_REPEATS = 3

-- A string split at spaces, or a list of strings, as a list of words.
function M.words(x, what)
  if x == nil then return {} end
  if type(x) == "string" then
    local out = {}
    for w in x:gmatch("%S+") do out[#out + 1] = w end
    return out
  end
  if type(x) ~= "table" then return nil, string.format("%s must be a string or a list of strings", what) end
  local out = {}
  for i, w in ipairs(x) do
    if type(w) ~= "string" and type(w) ~= "number" then
      return nil, string.format("%s[%d] must be a string", what, i)
    end
    out[i] = tostring(w)
  end
  return out
end

-- Words as the shell would read them back.
function M.quote(w)
  if w:match("^[%w%-_=./:,@%%+]+$") then return w end
  return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- A word with a password's value replaced by ***.
local function mask_word(w)
  local name = w:match("^(%-%-[^=]*[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd][^=]*)=")
  if name then return name .. "=***" end
  return w
end

-- The words of a command as text for people and the manifest: passwords as ***.
function M.masked(words)
  local out = {}
  for i, w in ipairs(words) do
    local m = mask_word(w)
    out[i] = m ~= w and m or M.quote(w)
  end
  return table.concat(out, " ")
end

-- A name usable in a file name.
function M.slug(s)
  return (tostring(s):gsub("[^%w%-_.]", "_"))
end

local function check_env(env, what)
  if env == nil then return {} end
  if type(env) ~= "table" then return nil, what .. " must be a table of NAME = \"value\"" end
  local out = {}
  for k, v in pairs(env) do
    if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
      return nil, string.format("%s: '%s' is not an environment variable's name", what, tostring(k))
    end
    if type(v) ~= "string" and type(v) ~= "number" then
      return nil, string.format("%s.%s must be a string", what, k)
    end
    out[k] = tostring(v)
  end
  return out
end

local function check_command(c, what)
  if c == nil then return nil end
  if type(c) ~= "string" then return nil, what .. " must be a shell command (a string)" end
  return c
end

local AXES = { threads = true, users = true }
local ORDERS = { alternate = true, random = true }

-- Drops --NAME=... (either spelling) from words: the axis sets it.
local function without_option(words, name)
  local out = {}
  for _, w in ipairs(words) do
    local n = w:match("^%-%-([%w%-_]+)=")
    if not (n and n:gsub("_", "-") == name) and not (name == "threads" and n == "num-threads") then out[#out + 1] = w end
  end
  return out
end

local function normalize_workload(w, i)
  local what = string.format("workloads[%d]", i)
  if type(w) ~= "table" then return nil, what .. " must be a table with args" end
  local args, err = M.words(w.args, what .. ".args")
  if not args then return nil, err end
  if #args == 0 then return nil, what .. " has no args (the workload and its options)" end
  for _, a in ipairs(args) do
    if a:match("^%-%-output=") or a == "--output" then
      return nil, what .. ": no --output in args (the study names each run's file)"
    end
    if a == "run" or a == "prepare" or a == "cleanup" then
      return nil, string.format("%s: args without the command ('%s'): the study adds it", what, a)
    end
  end
  local out = { args = args, prepare = w.prepare == true, cleanup = w.cleanup == true }
  out.name = w.name or (args[1]:match("([^/]+)$") or args[1]):gsub("%.lua$", "")
  if type(out.name) ~= "string" or out.name == "" then return nil, what .. ".name must be a string" end
  for axis in pairs(AXES) do
    if w[axis] ~= nil then
      if out.axis then return nil, what .. ": one concurrency axis (threads or users), not both" end
      if type(w[axis]) ~= "table" or #w[axis] == 0 then
        return nil, string.format("%s.%s must be a list of counts, e.g. { 8, 16, 32 }", what, axis)
      end
      for k, v in ipairs(w[axis]) do
        if type(v) ~= "number" or v < 1 or v ~= math.floor(v) then
          return nil, string.format("%s.%s[%d] must be a positive whole number", what, axis, k)
        end
      end
      out.axis, out.points = axis, w[axis]
      out.args = without_option(args, axis)
    end
  end
  if w.bound_ms ~= nil then
    if type(w.bound_ms) ~= "number" or w.bound_ms <= 0 then return nil, what .. ".bound_ms must be a number of ms > 0" end
    if not out.axis then return nil, what .. ".bound_ms needs a concurrency axis (threads or users)" end
    out.bound_ms = w.bound_ms
    out.bound_percentile = w.bound_percentile or 99
    if type(out.bound_percentile) ~= "number" or out.bound_percentile <= 0 or out.bound_percentile > 100 then
      return nil, what .. ".bound_percentile must be a percentile (0 < p <= 100)"
    end
  end
  for k in pairs(w) do
    if not ({ args = true, name = true, threads = true, users = true, bound_ms = true, bound_percentile = true,
              prepare = true, cleanup = true })[k] then
      return nil, string.format("%s: unknown key '%s' (args, name, threads, users, bound_ms, bound_percentile, prepare, cleanup)", what, tostring(k))
    end
  end
  return out
end

local function normalize_configuration(c, i, several)
  local what = string.format("configurations[%d]", i)
  if type(c) ~= "table" then return nil, what .. " must be a table" end
  for k in pairs(c) do
    if not ({ label = true, options = true, env = true, prefix = true, before = true, after = true })[k] then
      return nil, string.format("%s: unknown key '%s' (label, options, env, prefix, before, after)", what, tostring(k))
    end
  end
  if several and (type(c.label) ~= "string" or c.label == "") then return nil, what .. " has no label" end
  local out = { label = c.label }
  local err
  out.options, err = M.words(c.options, what .. ".options")
  if not out.options then return nil, err end
  out.env, err = check_env(c.env, what .. ".env")
  if not out.env then return nil, err end
  if c.prefix ~= nil and type(c.prefix) ~= "string" then return nil, what .. ".prefix must be a string" end
  out.prefix = c.prefix
  out.before, err = check_command(c.before, what .. ".before")
  if err then return nil, err end
  out.after, err = check_command(c.after, what .. ".after")
  if err then return nil, err end
  return out
end

-- Checks a plan's table and fills in its defaults. opts: { path, hostname, label (--label) }.
function M.normalize(t, opts)
  if type(t) ~= "table" then return nil, "the plan must return a table (see doc/compare.md)" end
  for k in pairs(t) do
    if not ({ dir = true, repeats = true, warmup = true, order = true, seed = true, precision = true, options = true,
              env = true, configurations = true, workloads = true, notes = true })[k] then
      return nil, string.format("unknown key '%s' (dir, repeats, warmup, order, seed, precision, options, env, "
        .. "configurations, workloads, notes)", tostring(k))
    end
  end
  local plan = { repeats = t.repeats or M.DEFAULT_REPEATS, warmup = t.warmup or 0, order = t.order or "alternate",
                 seed = t.seed or 1 }
  if type(plan.repeats) ~= "number" or plan.repeats < 1 or plan.repeats ~= math.floor(plan.repeats) then
    return nil, "repeats must be a whole number >= 1"
  end
  if type(plan.warmup) ~= "number" or plan.warmup < 0 or plan.warmup ~= math.floor(plan.warmup) then
    return nil, "warmup must be a whole number >= 0"
  end
  if not ORDERS[plan.order] then return nil, "order must be \"alternate\" or \"random\"" end
  if type(plan.seed) ~= "number" then return nil, "seed must be a number" end
  if t.precision ~= nil then
    local p = t.precision
    if type(p) ~= "table" or type(p.pct) ~= "number" or p.pct <= 0 then
      return nil, "precision must be { pct = N, max_repeats = M } (pct > 0)"
    end
    local max = p.max_repeats or 10
    if type(max) ~= "number" or max < plan.repeats then return nil, "precision.max_repeats must be >= repeats" end
    plan.precision = { pct = p.pct, max_repeats = max }
  end
  local dir = t.dir or (opts.path and (opts.path:match("([^/]+)$") or opts.path):gsub("%.lua$", "")) or "study"
  if type(dir) ~= "string" or dir == "" then return nil, "dir must be a directory name" end
  plan.dir = dir
  local err
  plan.options, err = M.words(t.options, "options")
  if not plan.options then return nil, err end
  plan.env, err = check_env(t.env, "env")
  if not plan.env then return nil, err end
  plan.notes, err = M.words(type(t.notes) == "string" and { t.notes } or t.notes, "notes")
  if not plan.notes then return nil, err end
  if type(t.workloads) ~= "table" or #t.workloads == 0 then
    return nil, "the plan has no workloads (workloads = { { args = \"cpu\" }, ... })"
  end
  plan.workloads = {}
  local names = {}
  for i, w in ipairs(t.workloads) do
    local nw, werr = normalize_workload(w, i)
    if not nw then return nil, werr end
    if names[nw.name] then return nil, string.format("two workloads are named '%s': give each a name", nw.name) end
    names[nw.name] = true
    plan.workloads[i] = nw
  end
  local configs = t.configurations or { {} }
  if type(configs) ~= "table" or #configs == 0 then return nil, "configurations must be a list of tables" end
  plan.configurations = {}
  local labels = {}
  for i, c in ipairs(configs) do
    local nc, cerr = normalize_configuration(c, i, #configs > 1)
    if not nc then return nil, cerr end
    if #configs == 1 then nc.label = opts.label or nc.label or opts.hostname or "this" end
    if labels[nc.label] then return nil, string.format("two configurations are labelled '%s'", nc.label) end
    labels[nc.label] = true
    plan.configurations[i] = nc
  end
  if opts.label and #configs > 1 then
    return nil, "--label names the configuration of a plan that has one; this plan has " .. #configs
  end
  return plan
end

-- The plans built into luabench, by name: a module each, whose plan(vars, ctx) returns the
-- plan's table (ctx: { dir = --dir, label = --label, hostname }).
M.BUILTIN = { machine = "luabench.internal.plans.machine" }

-- A built-in plan's module, or nil when name is not one.
function M.builtin(name)
  local mod = M.BUILTIN[name]
  return mod and require(mod) or nil
end

-- Reads a plan file, or a built-in plan by name: a file's chunk is called with the --set values
-- (local vars = ...).
function M.load(path, opts)
  local builtin = M.builtin(path)
  if builtin then
    local ok, t = pcall(builtin.plan, opts.vars or {}, { dir = opts.dir, label = opts.label, hostname = opts.hostname })
    if not ok then return nil, string.format("the %s plan: %s", path, tostring(t)) end
    local plan, perr = M.normalize(t, opts)
    if not plan then return nil, string.format("the %s plan: %s", path, perr) end
    return plan
  end
  local chunk, err = loadfile(path)
  if not chunk then
    return nil, (err:gsub("^cannot open ", "cannot read the plan "))
  end
  local ok, t = pcall(chunk, opts.vars or {})
  if not ok then return nil, string.format("the plan failed: %s", tostring(t)) end
  local plan, perr = M.normalize(t, opts)
  if not plan then return nil, string.format("%s: %s", path, perr) end
  return plan
end

-- Park-Miller: the same order from the same seed, whatever LuaJIT's math.random does.
local function shuffled(list, state)
  local out = {}
  for i, x in ipairs(list) do out[i] = x end
  for i = #out, 2, -1 do
    state[1] = state[1] * 16807 % 2147483647
    local j = state[1] % i + 1
    out[i], out[j] = out[j], out[i]
  end
  return out
end

-- The configurations of one round, in order.
local function round_configs(plan, state)
  local idx = {}
  for i = 1, #plan.configurations do idx[i] = i end
  if plan.order == "random" then return shuffled(idx, state) end
  return idx
end

local function run_file(run)
  local kind = run.warmup and ("w" .. run.round) or ("r" .. run["repeat"])
  local point = run.point and string.format("-%s%d", run.axis == "users" and "u" or "t", run.point) or ""
  local base = string.format("runs/%04d-%s-%s-%s%s", run.position, M.slug(run.configuration), M.slug(run.workload), kind, point)
  return base .. ".json", base .. ".txt"
end

-- One round's runs: each configuration in turn (the round's order), its workloads and points.
-- only: a set of workload names (nil: all).
function M.round(plan, round, opts)
  local out = {}
  for _, ci in ipairs(round_configs(plan, opts.state)) do
    local c = plan.configurations[ci]
    for _, w in ipairs(plan.workloads) do
      if not opts.only or opts.only[w.name] then
        for _, point in ipairs(w.points or { false }) do
          local run = { configuration = c.label, workload = w.name, point = point or nil, axis = point and w.axis or nil,
                        warmup = opts.warmup or false, round = round, ["repeat"] = not opts.warmup and round or nil,
                        extra = opts.extra or nil }
          out[#out + 1] = run
        end
      end
    end
  end
  return out
end

-- Every run of the plan in order, without the precision rounds added later: warm-up rounds,
-- then `repeats` rounds. Each run: { position, configuration, workload, point, axis, warmup,
-- round, repeat, file (the result, relative to the study's directory), log, status = "pending" }.
function M.order(plan)
  local state = { plan.seed % 2147483646 + 1 }
  local runs = {}
  local function add(list)
    for _, r in ipairs(list) do
      r.position = #runs + 1
      r.file, r.log = run_file(r)
      r.status = "pending"
      runs[#runs + 1] = r
    end
  end
  for w = 1, plan.warmup do add(M.round(plan, w, { warmup = true, state = state })) end
  for r = 1, plan.repeats do add(M.round(plan, r, { state = state })) end
  return runs, state
end

-- One more measured round of some workloads (precision), positions after `runs`.
function M.extra_round(plan, runs, round, only, state)
  local list = M.round(plan, round, { only = only, extra = true, state = state })
  for _, r in ipairs(list) do
    r.position = #runs + 1
    r.file, r.log = run_file(r)
    r.status = "pending"
    runs[#runs + 1] = r
  end
  return list
end

local function find(list, key, value)
  for _, x in ipairs(list) do if x[key] == value then return x end end
end
M.find = find

-- The words of one run's luabench command (without the binary): the workload's args, the
-- plan's options, the configuration's options, the axis value, the output file and `run`.
function M.run_words(plan, run, output)
  local w, c = find(plan.workloads, "name", run.workload), find(plan.configurations, "label", run.configuration)
  local words = {}
  for _, x in ipairs(w.args) do words[#words + 1] = x end
  for _, x in ipairs(plan.options) do words[#words + 1] = x end
  for _, x in ipairs(c.options) do words[#words + 1] = x end
  if run.point then words[#words + 1] = string.format("--%s=%d", run.axis, run.point) end
  if output then words[#words + 1] = "--output=" .. output end
  words[#words + 1] = "run"
  return words
end

-- prepare/cleanup of a workload: its args and options with the largest --threads of its axis.
function M.data_words(plan, wname, cname, command)
  local w, c = find(plan.workloads, "name", wname), find(plan.configurations, "label", cname)
  local words = {}
  for _, x in ipairs(w.args) do words[#words + 1] = x end
  for _, x in ipairs(plan.options) do words[#words + 1] = x end
  for _, x in ipairs(c.options) do words[#words + 1] = x end
  if w.axis == "threads" then
    local max = 0
    for _, p in ipairs(w.points) do max = math.max(max, p) end
    words[#words + 1] = "--threads=" .. max
  end
  words[#words + 1] = command
  return words
end

-- What identifies a plan's runs, to check that a resumed study still has the same plan: per
-- position, configuration/workload/point/repeat, and each command as masked text.
function M.identity(plan, runs)
  local parts = {}
  for _, r in ipairs(runs) do
    if not r.extra then
      parts[#parts + 1] = string.format("%d %s %s %s %s", r.position, r.configuration, r.workload,
        tostring(r.point), r.warmup and ("w" .. r.round) or ("r" .. r["repeat"]))
    end
  end
  return parts
end

return M
