-- luabench.api_check: misuse reported at the caller's line, and methods that refuse a wrong self.
local api = require("luabench.api_check")

describe("luabench.api_check", function()
  it("escape shows control characters as escapes, everything else as it is", function()
    assert.are.equal("a\\r\\nb\\tc\\0d\\x1b[31m\\x7f\\a\\b\\v\\f\\x01", api.escape("a\r\nb\tc\0d\27[31m\127\a\b\v\f\1"))
    assert.are.equal("caf\195\169 \\ \"q\" 'q'", api.escape("caf\195\169 \\ \"q\" 'q'"))
    assert.are.equal("42", api.escape(42))
    assert.are.equal(api.escape("a\r\n\1"), luabench.escape("a\r\n\1"))
  end)

  it("raise names the first caller outside the library, through pcall and tail calls", function()
    local function helper() return api.raise("boom") end
    local ok, err = pcall(function() helper() end)
    assert.is_false(ok)
    assert.is_truthy(err:find("api_check_spec%.lua:%d+: boom$"), err)
  end)

  it("guard_methods refuses a self of another kind, naming the line, and passes its own through", function()
    local Thing = {}
    Thing.__index = Thing
    function Thing:get(x, ...) return self.v, x, select("#", ...) end
    api.guard_methods(Thing, "a thing")
    local t = setmetatable({ v = 1 }, Thing)
    assert.are.same({ 1, 2, 3 }, { t:get(2, nil, nil, nil) })
    for _, wrong in ipairs({ 42, {}, "x", false }) do
      local ok, err = pcall(function() local r = Thing.get(wrong) return r end)
      assert.is_false(ok)
      assert.is_truthy(err:find("api_check_spec%.lua:%d+: get%(%) called on " .. type(wrong) ..
        ", not on a thing %(call it with ':'%)$"), err)
    end
    assert.are.equal("table", type(rawget(Thing, "__index"))) -- metamethods are left alone
    -- a script's proxy of an object, and a subclass, are objects of the class
    local proxy = setmetatable({}, { __index = t })
    assert.are.same({ 1, 5, 0 }, { proxy:get(5) })
    local Sub = setmetatable({}, { __index = Thing })
    Sub.__index = Sub
    assert.is_true(api.is_a(setmetatable({}, { __index = Thing }), Thing))
    assert.is_true(api.is_a(proxy, Thing))
    assert.is_false(api.is_a({}, Thing))
    assert.is_false(api.is_a(42, Thing))
  end)
end)
