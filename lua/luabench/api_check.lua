-- Misuse of the Lua API's objects, reported at the script's line: luabench.io and luabench.stats
-- use these (sysbench.sql has its own raise, which also knows the 0.5-style globals).
local getinfo = require("debug").getinfo -- (the global `debug` may be the --debug option)

local M = {}

-- Text from a user, a script or a server made fit for a one-line message: control characters
-- (and DEL) as escapes, \r \n \t \0 ... and \x1b for those without a letter; every other byte
-- as it is. Scripts reach it as luabench.escape; its C twin is lb_escape (src/util/util.c).
local LETTERS = { [0] = "\\0", [7] = "\\a", [8] = "\\b", [9] = "\\t", [10] = "\\n", [11] = "\\v",
  [12] = "\\f", [13] = "\\r" }
local function escape_char(c)
  local b = c:byte()
  return LETTERS[b] or string.format("\\x%02x", b)
end
function M.escape(s)
  s = tostring(s)
  if not s:find("%c") then return s end
  return (s:gsub("%c", escape_char))
end

-- A value as a message shows what a call got: nil, true, 42, "abc" (escaped, the first 40
-- bytes), or the type of anything else.
function M.show(v)
  local t = type(v)
  if t == "nil" or t == "boolean" or t == "number" then return tostring(v) end
  if t == "string" then
    return #v <= 40 and '"' .. M.escape(v) .. '"' or '"' .. M.escape(v:sub(1, 40)) .. '"...'
  end
  return t
end

-- Raises "<call>: <rule> (got <v>)" at the caller's line: the message of an argument of the
-- wrong kind, e.g. `c:receive(n): n must be a whole number >= 0 or a delimiter string (got -1)`.
-- Callers test their arguments inline (a type() test costs nothing in a trace) and call this
-- only when one fails.
function M.bad(call, rule, v)
  M.raise(string.format("%s: %s (got %s)", call, rule, M.show(v)))
end

-- Raises msg at the first caller that is neither a C function (pcall) nor the library itself
-- (modules compiled in as "@luabench/..."), whatever the depth of calls and tail calls in
-- between: `fileio.lua:42: io: read() on a closed file (...)`.
function M.raise(msg)
  local lvl = 2
  while true do
    local i = getinfo(lvl, "S")
    if not i then
      lvl = 0
      break
    end
    if i.what ~= "C" and not i.source:find("^@luabench/") then break end
    lvl = lvl + 1
  end
  error(msg, lvl)
end

-- Whether v is an object of class: its metatable is the class, or v reaches one through __index
-- tables (a script's proxy `setmetatable({}, { __index = con })`, or a subclass whose metatable's
-- __index is the class), a few levels deep.
function M.is_a(v, class)
  for _ = 1, 4 do
    local mt = getmetatable(v)
    if mt == class then return true end
    if type(v) ~= "table" or type(mt) ~= "table" then return false end
    v = rawget(mt, "__index")
    if v == class then return true end
    if type(v) ~= "table" then return false end
  end
  return false
end

-- Makes every method of class refuse a self that is not one of its objects (T.done(42), a
-- method called with '.' instead of ':'), which would otherwise reach the C layer as a NULL
-- or a foreign pointer, or fail inside the library. what: "a statistics type from
-- luabench.stats.type()". For classes whose methods are not on the hot path of an event loop.
function M.guard_methods(class, what)
  local raise, is_a = M.raise, M.is_a
  for name, f in pairs(class) do
    if type(f) == "function" and name:sub(1, 2) ~= "__" then
      class[name] = function(self, ...)
        if getmetatable(self) ~= class and not is_a(self, class) then
          raise(string.format("%s() called on %s, not on %s (call it with ':')", name, type(self), what))
        end
        return f(self, ...)
      end
    end
  end
end

return M
