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
