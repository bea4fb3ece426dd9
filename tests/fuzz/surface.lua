-- The Lua API's surface as data, for the lua_api fuzz harness (tests/fuzz/lua_api.lua) and the
-- surface spec (tests/lua/api_surface_spec.lua): the field names of every struct the FFI
-- declarations define (read from the cdef texts the build generates from the C headers, so a
-- field added to a header is read without editing either), and the keys and methods of the
-- objects the API hands out (collected from the objects themselves). Returns a table of
-- functions.
local M = {}

local CDEFS = { "luabench.cdef", "luabench.cdef_sql", "luabench.cdef_io", "luabench.cdef_socket",
  "luabench.cdef_kernels" }

-- The name a member declaration declares: `uint32_t nrows`, `char sqlstate[6]`,
-- `int (*step)(struct lb_db_conn *c, ...)`, `const char *const *values`.
local function declared_name(decl)
  decl = decl:gsub("%b()", function(p) return p:match("^%(%s*%*") and p or "" end)
  return decl:match("%(%s*%*%s*([%a_][%w_]*)%s*%)") or decl:match("([%a_][%w_]*)%s*%[") or
    decl:match("([%a_][%w_]*)%s*:") or decl:match("([%a_][%w_]*)%s*$")
end

local function add(list, seen, name)
  if name and not seen[name] then
    seen[name] = true
    list[#list + 1] = name
  end
end

-- Every member name of every struct (and union) of the FFI declarations, sorted.
function M.struct_fields()
  local names, seen = {}, {}
  for _, mod in ipairs(CDEFS) do
    local ok, text = pcall(require, mod)
    if ok and type(text) == "string" then
      text = text:gsub("/%*.-%*/", ""):gsub("//[^\n]*", "")
      for body in text:gmatch("struct%s+[%w_]+%s*(%b{})") do
        -- members of nested unions and structs are members too
        body = body:sub(2, -2):gsub("[{}]", ";")
        for decl in body:gmatch("[^;]+") do
          add(names, seen, declared_name(decl:gsub("^%s*(.-)%s*$", "%1")))
        end
      end
    end
  end
  table.sort(names)
  return names
end

-- Adds to `into` the string keys of table v and of its metatable's __index table (an FFI
-- object's methods are in the table given to ffi.metatype: the caller passes that one).
function M.names_of(v, into, seen)
  if type(v) == "table" then
    for k in pairs(v) do
      if type(k) == "string" then add(into, seen, k) end
    end
    local mt = getmetatable(v)
    local idx = type(mt) == "table" and rawget(mt, "__index")
    if type(idx) == "table" then
      for k in pairs(idx) do
        if type(k) == "string" then add(into, seen, k) end
      end
    end
  end
  return into
end

-- Whether v is a function a script can call: a Lua function, or a C function the API hands out
-- as an FFI function pointer.
local function callable(v)
  if type(v) == "function" then return true end
  if type(v) ~= "cdata" then return false end
  local ffi = require("ffi")
  return tostring(ffi.typeof(v)):find("(", 1, true) ~= nil
end

-- Tables that hold a script's data or settings, not API: the options, the hooks a script sets,
-- the data of its users, the commands and options it declares.
local DATA = { opt = true, hooks = true, user_data = true, options = true, commands = true }

-- Calls visit(t, prefix) for every table of the API reachable from root (prefix: its dotted
-- path), once each: the modules root loads on first use are loaded first; keys starting with
-- '_' (private) and the script's own data (DATA) are not followed.
local function each_table(root, prefix, visit)
  local seen = {}
  local function walk(t, path)
    if seen[t] then return end
    seen[t] = true
    for k in pairs(rawget(t, "_lazy") or {}) do pcall(function() return t[k] end) end
    visit(t, path)
    for k, v in pairs(t) do
      if type(k) == "string" and not k:find("^_") and not DATA[k] and type(v) == "table" then
        walk(v, path .. k .. ".")
      end
    end
  end
  walk(root, prefix)
end

-- Every function of the public Lua API, found by walking the API itself at run time, so that a
-- function added later is in the list without anyone adding it here: every table reachable
-- from `root` (the sysbench/luabench table, see each_table), and the 0.5-style global
-- functions (db_*, sb_*). Returns { {name = prefix .. "io.open", f = function}, ... } sorted by
-- name (prefix: "luabench." unless given).
function M.functions(root, prefix)
  local list = {}
  each_table(root, prefix or "luabench.", function(t, path)
    for k, v in pairs(t) do
      if type(k) == "string" and not k:find("^_") and callable(v) then list[#list + 1] = { name = path .. k, f = v } end
    end
  end)
  for k, v in pairs(_G) do
    if type(k) == "string" and (k:find("^db_") or k:find("^sb_")) and callable(v) then
      list[#list + 1] = { name = k, f = v }
    end
  end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- The method names of the API's FFI objects (histograms, result sets): an FFI metatype's
-- methods are out of getmetatable's reach, so each module that makes such objects keeps their
-- table as `_methods`. Found in the tables functions() walks; sorted.
function M.ffi_methods(root)
  local names, seen = {}, {}
  each_table(root, "", function(t)
    local methods = rawget(t, "_methods")
    if type(methods) == "table" then
      for name in pairs(methods) do add(names, seen, name) end
    end
  end)
  table.sort(names)
  return names
end

-- The modules a script may require besides the sysbench table: those doc/lua-api.md shows it
-- requiring (require("luabench.dialect") ...), found in the text, so a module documented later
-- is walked too. Returns { {name = "luabench.dialect", module = table}, ... } sorted by name.
function M.required_modules(root_dir)
  local f = io.open(root_dir .. "/doc/lua-api.md", "r")
  if not f then return {} end
  local text = f:read("*a")
  f:close()
  local list, seen = {}, {}
  for name in text:gmatch('require%("(luabench%.[%w_]+)"%)') do
    if not seen[name] then
      seen[name] = true
      local ok, mod = pcall(require, name)
      if ok and type(mod) == "table" then list[#list + 1] = { name = name, module = mod } end
    end
  end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- Whether v may be handed to arbitrary API calls as an argument: anything but a raw pointer
-- read from a field (an FFI pointer says nothing of the size of what it points to, and may be
-- NULL: passing it where a buffer is expected reads whatever it points to, as memcpy would).
function M.safe_value(v)
  if type(v) ~= "cdata" then return true end
  local ffi = require("ffi")
  return not tostring(ffi.typeof(v)):find("*", 1, true)
end

-- Reads field k of v: true and the value, or false and the error. Never raises.
function M.read(v, k)
  return pcall(function() return v[k] end)
end

return M
