-- What the fuzz_lua_api target found (tests/fuzz/crashers/lua_api/): each misuse is a Lua error
-- that names the problem, or a defined result, instead of a crash or a hang.
local ffi = require("ffi")

describe("API misuse found by fuzzing", function()
  it("json.encode refuses a table that contains itself", function()
    local t = { 1 }
    t.self, t[2] = t, t
    local ok, err = pcall(sysbench.json.encode, t)
    assert.is_false(ok)
    assert.matches("contains itself", err)
    -- the same table twice, side by side, is not a cycle
    local leaf = { x = 1 }
    assert.are.equal('[{"x":1},{"x":1}]', sysbench.json.encode({ leaf, leaf }))
    assert.are.equal('{"1e+300":1}', sysbench.json.encode({ [1e300] = 1 }))
  end)

  it("atomics and shared memory refuse nil", function()
    assert.has_error(function() luabench.atomic_add(nil, 1) end, nil)
    assert.has_error(function() luabench.atomic_load(nil) end, nil)
    assert.has_error(function() luabench.atomic_cas(nil, 0, 1) end, nil)
    assert.has_error(function() luabench.shared(nil, "uint64_t", 1) end, nil)
    local p = luabench.shared("fuzz_findings_counter", "uint64_t", 1)
    assert.are.equal(0, tonumber(luabench.atomic_add(p, 2)))
    assert.are.equal(2, tonumber(luabench.atomic_load(p)))
  end)

  it("rand.fill and rand.varstring check their arguments", function()
    local buf = ffi.new("char[8]")
    assert.has_error(function() sysbench.rand.fill("####", nil) end)
    assert.has_error(function() sysbench.rand.fill("##", buf, 5) end)
    assert.has_error(function() sysbench.rand.fill(nil, buf, 1) end)
    sysbench.rand.fill("ab#", buf, 3)
    assert.matches("^ab%d$", ffi.string(buf, 3))
    assert.has_error(function() sysbench.rand.varstring(99, -0.5) end)
    assert.has_error(function() sysbench.rand.varstring(5, 1) end)
    assert.are.equal(3, #sysbench.rand.varstring(3, 3))
  end)

  it("a reversed range draws a uint32 and NaN durations do not wait", function()
    for _ = 1, 100 do
      local v = sysbench.rand.gaussian(-1611, 5)
      assert.is_true(v >= 0 and v < 2 ^ 32)
      v = sysbench.rand.uniform(10, 5)
      assert.is_true(v >= 0 and v < 2 ^ 32)
    end
    local t0 = os.clock()
    luabench.sleep(0 / 0)
    luabench.sleep(-1)
    assert.is_true(os.clock() - t0 < 1)
  end)
end)
