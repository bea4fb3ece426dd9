-- Every module of the Lua library has its own spec here.
local h = require("helpers")

describe("the Lua library", function()
  it("every lua/luabench module has a spec in tests/lua", function()
    local p = io.popen("cd " .. h.q(h.root) .. " && ls lua/luabench/*.lua")
    local missing = {}
    for path in p:lines() do
      local m = path:match("lua/luabench/([%w_]+)%.lua$")
      if not h.read(h.root .. "/tests/lua/" .. m .. "_spec.lua") then missing[#missing + 1] = m end
    end
    p:close()
    assert.are.same({}, missing)
  end)
end)
