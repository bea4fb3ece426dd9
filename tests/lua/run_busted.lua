-- Runs busted inside luabench's own LuaJIT, so specs see the real sysbench/luabench API and
-- the FFI resolves against the real binary: `luabench tests/lua/run_busted.lua`, with busted's
-- arguments in LB_BUSTED_ARGS (luabench would read them as its own options otherwise).
local args = {}
for a in (os.getenv("LB_BUSTED_ARGS") or ""):gmatch("%S+") do args[#args + 1] = a end
arg = { [0] = "busted" }
for i, a in ipairs(args) do arg[i] = a end
package.path = (os.getenv("LB_SOURCE_ROOT") or ".") .. "/tests/?.lua;" .. package.path
-- busted (busted/luajit.lua) caches ffi.typeof's result by its first argument, so every
-- ffi.typeof("$ *", T) returned the pointer type of the first T ever asked: luabench.shared() handed
-- out uint64_t pointers for uint32_t objects (and wrote past them). Its cdef and metatype guards
-- stay (spec files reload modules, which define their types again); typeof is put back.
do
  local ffi = require("ffi")
  local typeof, patch = ffi.typeof, require("busted.luajit")
  package.loaded["busted.luajit"] = function()
    patch()
    ffi.typeof = typeof
  end
end
-- On failures busted ends Lua 5.1 interpreters with error() (a nil error): exit 1 quietly.
local ok, err = pcall(require("busted.runner"), { standalone = false })
if not ok then
  if err ~= nil then io.stderr:write(tostring(err), "\n") end
  os.exit(1)
end
