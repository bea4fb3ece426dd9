-- sysbench.histogram: log-bucketed histograms, checked against an exact sort and against
-- sysbench 1.0.20's own print().
local h = require("helpers")

describe("sysbench.histogram", function()
  it("refuses bad parameters in one line", function()
    for _, p in ipairs({ { 0, 1, 10 }, { 10, 0, 10 }, { 10, 5, 1 } }) do
      local ok, err = pcall(sysbench.histogram.new, p[1], p[2], p[3])
      assert.is_false(ok)
      assert.is_truthy(err:find("invalid histogram parameters", 1, true), err)
    end
  end)

  it("refuses sizes that are not an integer in 2..2^24, and non-numeric ranges", function()
    -- -1 used to wrap to a uint32 size of 2^32-1 in C: a 32 GiB allocation that ended the process
    local bad = { { -1, 1, 10 }, { 1, 1, 10 }, { 2.5, 1, 10 }, { 2 ^ 24 + 1, 1, 10 }, { 2 ^ 32, 1, 10 },
      { 0 / 0, 1, 10 }, { "10", 1, 10 }, { 10, "1", 10 }, { 10, 1, nil }, { 10, 0 / 0, 10 }, {} }
    for _, p in ipairs(bad) do
      -- called from a Lua line: the message names that line, not histogram.lua
      local ok, err = pcall(function() local hist = sysbench.histogram.new(p[1], p[2], p[3]) return hist end)
      assert.is_false(ok)
      local show = require("luabench.api_check").show
      assert.are.equal(string.format("histogram_spec.lua:%d: sysbench.histogram.new(size, min, max): invalid " ..
        "histogram parameters (size %s, range %s..%s)", debug.getinfo(1, "l").currentline - 4, show(p[1]),
        show(p[2]), show(p[3])), err:match("[^/]*$"))
    end
    assert.are.equal(0, sysbench.histogram.new(2, 1, 2):percentile(50))
  end)

  it("is empty at first, and clamps values outside its range to the edge buckets", function()
    local hist = sysbench.histogram.new(64, 10, 1000)
    for _, p in ipairs({ 0, 50, 100 }) do assert.are.equal(0, hist:percentile(p)) end
    hist:update(0.001)
    hist:update(-5)
    assert.is_true(math.abs(hist:percentile(100) - 10) < 1e-9, tostring(hist:percentile(100)))
    hist:update(1e12)
    hist:update(math.huge)
    assert.is_true(math.abs(hist:percentile(100) - 1000) < 1e-6, tostring(hist:percentile(100)))
    assert.is_true(math.abs(hist:percentile(50) - 10) < 1e-9, tostring(hist:percentile(50)))
  end)

  it("percentiles are within a bucket of the exact ones", function()
    local hist = sysbench.histogram.new(1024, 1, 100000)
    local values = {}
    local x = 12345
    for i = 1, 5000 do
      x = (x * 1103515245 + 12345) % 2147483648
      values[i] = 1 + x % 50000
      hist:update(values[i])
    end
    table.sort(values)
    -- 1024 log buckets over 1..1e5: each is 1.13 % wide
    for _, p in ipairs({ 10, 50, 90, 99 }) do
      local exact = values[math.ceil(#values * p / 100)]
      local got = hist:percentile(p)
      assert.is_true(math.abs(got - exact) / exact < 0.02, p .. ": " .. got .. " vs exact " .. exact)
    end
  end)

  it("prints what sysbench 1.0.20 prints", function()
    local script = h.write("hist_print.lua", [[
      local hist = sysbench.histogram.new(100, 1, 1000)
      for i = 1, 300 do hist:update(i % 200 + 1) end
      hist:print()
    ]])
    local lb, err, rc = h.run(script)
    assert.are.equal(0, rc, err)
    local p = io.popen("sysbench " .. h.q(script) .. " 2>&1")
    local sb = p:read("*a")
    p:close()
    local function body(s) return (s:gsub("^[^\n]*\n", "")) end -- the banners differ
    assert.is_truthy(sb:find("value  %-+ distribution"), sb)
    assert.are.equal(body(sb), body(lb))
  end)
end)
