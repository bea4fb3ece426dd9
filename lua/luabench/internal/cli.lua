-- luabench.internal.cli: the command lines of the commands luabench implements in Lua (compare,
-- report, study, study machine), the Lua side of src/cli/. cli.c hands over the command's name
-- and the words after it; this module parses them, answers --help and refuses a mistake with the command's
-- FATAL line, and calls the command's run() with what it parsed. The commands' modules never see
-- the words. (The parsing is in Lua rather than in C because what comes out are Lua tables —
-- inputs with their labels, a plan's --set values — that the commands read as such.)
local escape = require("luabench.api_check").escape

local M = {}

-- A command's failure: its FATAL line on stderr, control characters shown as escapes unless
-- `raw`. Returns 1, the exit code.
function M.fail(name, msg, raw)
  io.stderr:write("FATAL: ", name, ": ", raw and msg or escape(msg), "\n")
  return 1
end

-- ---- parsers ------------------------------------------------------------------------------------

-- The arguments shared by compare and report. Returns { inputs = {{path, label, group}}, ... }
-- or nil and a message: a --label names every input after it up to the next one (group: which
-- --label, so that one given twice still makes one label). `known` maps option names to
-- "value" or "flag".
function M.parse_inputs(args, known)
  local a = { inputs = {} }
  local label, group, dangling = nil, 0, false
  local i = 1
  while i <= #args do
    local arg = args[i]
    local name, value = arg:match("^%-%-([%w%-]+)=(.*)$")
    if not name then name = arg:match("^%-%-([%w%-]+)$") end
    if arg == "-h" then name = "help" end
    if arg == "-o" then name = "output" end
    if name then
      local kind = known[name]
      if not kind then return nil, string.format("unknown option '%s'", arg) end
      if kind == "value" and not value then
        i = i + 1
        value = args[i]
        if not value then return nil, string.format("option '%s' needs a value", arg) end
      elseif kind == "flag" and value then
        return nil, string.format("option '--%s' takes no value", name)
      end
      if name == "label" then
        if value == "" then return nil, "--label needs a name" end
        if dangling then return nil, string.format("--label=%s names no input", label) end
        label, group, dangling = value, group + 1, true
      else
        a[name] = value or true
      end
    else
      a.inputs[#a.inputs + 1] = { path = arg, label = label, group = label and group or nil }
      dangling = false
    end
    i = i + 1
  end
  if dangling then return nil, "--label must come before the input it names" end
  return a
end

-- study's arguments: { plan, dir, label, vars = {NAME = VALUE}, dry_run, help } or nil and a
-- message.
function M.parse_study(args)
  local a = { vars = {} }
  for _, arg in ipairs(args) do
    local name, value = arg:match("^%-%-([%w%-]+)=(.*)$")
    if not name then name = arg:match("^%-%-([%w%-]+)$") end
    if arg == "-h" then name = "help" end
    if name == "help" or name == "dry-run" then
      if value then return nil, string.format("option '--%s' takes no value", name) end
      a[name == "dry-run" and "dry_run" or name] = true
    elseif name == "dir" or name == "label" then
      if not value or value == "" then return nil, string.format("option '--%s' needs a value (--%s=...)", name, name) end
      a[name] = value
    elseif name == "set" then
      local k, v = (value or ""):match("^([%a_][%w_]*)=(.*)$")
      if not k then return nil, string.format("--set wants NAME=VALUE (got '%s')", tostring(value)) end
      a.vars[k] = v
    elseif name then
      return nil, string.format("unknown option '%s'", arg)
    elseif a.plan then
      return nil, string.format("one plan at a time (got '%s' and '%s')", a.plan, arg)
    else
      a.plan = arg
    end
  end
  return a
end

-- ---- the commands ---------------------------------------------------------------------------------

-- Each command: its module (USAGE, run(parsed)), its parser, whether its FATAL line shows control
-- characters as they are (study's, as it always has), and the checks of what it was given (a
-- message, or nil when complete).
local commands = {
  compare = {
    module = "luabench.internal.compare",
    parse = function(args)
      return M.parse_inputs(args, { label = "value", format = "value", output = "value", charts = "value", help = "flag" })
    end,
    check = function(a)
      if #a.inputs == 0 then return "give at least two inputs to compare (see luabench compare --help)" end
      a.format = a.format or "text"
      if a.format ~= "text" and a.format ~= "json" and a.format ~= "csv" then
        return string.format("unknown format '%s' (text, json or csv)", a.format)
      end
    end,
  },
  report = {
    module = "luabench.internal.report_html",
    parse = function(args)
      return M.parse_inputs(args, { label = "value", output = "value", title = "value", help = "flag" })
    end,
    check = function(a)
      if #a.inputs == 0 then return "no input (see luabench report --help)" end
      if not a.output then return "say where the HTML goes: -o report.html" end
    end,
  },
  study = {
    module = "luabench.internal.study", raw = true,
    parse = M.parse_study,
    check = function(a)
      if not a.plan then return "give a plan: luabench study PLAN (see luabench study --help)" end
    end,
  },
}

-- `luabench NAME ARGS...` (args: a list of strings). Returns the exit code.
function M.main(name, args)
  local cmd = assert(commands[name], "no such command")
  local function fail(msg) return M.fail(name, msg, cmd.raw) end
  local a, err = cmd.parse(args)
  if not a then return fail(err .. " (see luabench " .. name .. " --help)") end
  local mod = require(cmd.module)
  if a.help then io.stdout:write(mod.USAGE); return 0 end
  err = cmd.check(a)
  if err then return fail(err) end
  return mod.run(a)
end

return M
