-- sysbench.cmdline's checks of a script's option declarations and the option list of its help,
-- loaded by the control state only (luabench.cmdline keeps the entry points).
local M = {}

-- sysbench's checks of the declarations, with its messages; the engine calls this before it
-- registers the options and stops with a FATAL naming this function when it fails. Run as
-- sysbench the message carries the position sysbench's own cmdline.lua reports.
local function checker(additions)
  return function(ok, line, msg)
    if ok then return end
    error((additions and "" or string.format('[string "sysbench.cmdline.lua"]:%d: ', line)) .. msg, 0)
  end
end

local inferred = { boolean = 1, string = 5, number = 4, table = 6 }

-- The declared type of a declaration, as sysbench infers it from the default.
local function type_of(def)
  local t = def[3]
  if t == nil then t = def[2] == nil and 5 or inferred[type(def[2])] end
  return t
end

function M.read_options(cmdline, additions)
  local check = checker(additions)
  local opts = cmdline.options
  if opts == nil then return true end
  check(type(opts) == "table", 120, "wrong type for sysbench.cmdline.options: " .. type(opts))
  local names = {}
  for name, def in pairs(opts) do
    check(type(name) == "string" and type(def) == "table", 132, "wrong table structure in sysbench.cmdline.options")
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local def = opts[name]
    check(def[1] ~= nil, 137, "nil description for option " .. name)
    -- (sysbench also refuses ARG_LIST itself here, by a slip: luabench accepts it)
    check(type(def[2]) ~= "table" or def[3] == nil or def[3] == cmdline.ARG_LIST, 141,
      "wrong type for list option " .. name)
    check(type_of(def) ~= nil, 164, "cannot determine type for option " .. name)
  end
  return true
end

local hints = { [1] = "[=on|off]", [2] = "=N", [3] = "=SIZE", [4] = "=N", [5] = "=STRING",
  [6] = "=[LIST,...]", [7] = "=FILENAME" }

-- sysbench's layout of a test's options: the hints padded to the longest name + hint, a
-- default in brackets (also an empty one), and an empty line after the list.
function M.print_options(cmdline, additions)
  local opts = type(cmdline.options) == "table" and cmdline.options or {}
  local names, width = {}, 0
  for k, o in pairs(opts) do
    if type(k) == "string" and type(o) == "table" and (additions or not o.luabench) then
      names[#names + 1] = k
      width = math.max(width, #k + #(hints[type_of(o)] or "=UNKNOWN"))
    end
  end
  if #names == 0 then return end
  table.sort(names)
  for _, name in ipairs(names) do
    local o = opts[name]
    local def = o[2]
    if type(def) == "table" then def = table.concat(def, ",") end
    if type(def) == "boolean" then def = def and "on" or "off" end
    local line = string.format("  --%s%-" .. (width - #name + 1) .. "s%s", name,
      hints[type_of(o)] or "=UNKNOWN", tostring(o[1] or ""))
    if def ~= nil then line = line .. " [" .. tostring(def) .. "]" end
    print(line)
  end
  print("")
end

return M
