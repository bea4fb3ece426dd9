-- The Lua API's surface as data, for the lua_api fuzz harness (tests/fuzz/lua_api.lua) and the
-- surface spec (tests/lua/api_surface_spec.lua): the field names of every struct the FFI
-- declarations define (read from the cdef texts the build generates from the C headers, so a
-- field added to a header is read without editing either), and the keys and methods of the
-- objects the API hands out (collected from the objects themselves). Returns a table of
-- functions.
local M = {}

local CDEFS = { "luabench.cdef", "luabench.cdef_sql", "luabench.cdef_io" }

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
