-- sysbench.rand distributions, run inside the engine's own LuaJIT (control state).
local rand = sysbench.rand
local N = 200000

local function stats(f, a, b)
  local sum, sq, min, max, counts = 0, 0, math.huge, -math.huge, {}
  for _ = 1, N do
    local v = f(a, b)
    sum = sum + v
    sq = sq + v * v
    if v < min then min = v end
    if v > max then max = v end
    counts[v] = (counts[v] or 0) + 1
  end
  local mean = sum / N
  return { mean = mean, sd = math.sqrt(sq / N - mean * mean), min = min, max = max, counts = counts }
end

describe("sysbench.rand", function()
  it("uniform covers [a, b] evenly", function()
    local s = stats(rand.uniform, 1, 100)
    assert.are.equal(1, s.min)
    assert.are.equal(100, s.max)
    assert.is_true(math.abs(s.mean - 50.5) < 0.5)
    -- 2,000 draws per value have a standard deviation of 44 (2.2%): 15% is 6.8 sigma, so the
    -- 100 checks fail a correct generator once in a billion runs (10% failed one in 1,500).
    for v = 1, 100 do
      assert.is_true(math.abs(s.counts[v] - N / 100) < N / 100 * 0.15, "value " .. v)
    end
  end)

  it("uniform returns integers and handles a == b", function()
    for _ = 1, 1000 do
      local v = rand.uniform(7, 7)
      assert.are.equal(7, v)
    end
    local v = rand.uniform(1, 1e9)
    assert.are.equal(math.floor(v), v)
  end)

  it("gaussian stays in range and concentrates around the middle", function()
    local s = stats(rand.gaussian, 1, 1000)
    assert.is_true(s.min >= 1 and s.max <= 1000)
    assert.is_true(math.abs(s.mean - 500.5) < 5)
    -- Irwin-Hall with 12 iterations: sd = range / sqrt(12 * 12) = 1000 / 12
    assert.is_true(math.abs(s.sd - 1000 / 12) < 5, "sd " .. s.sd)
  end)

  it("special puts about 75% of draws in the central 1% band", function()
    local s = stats(rand.special, 1, 100000)
    local lo, hi = 49500, 50500
    local inband = 0
    for v, c in pairs(s.counts) do
      if v >= lo and v <= hi + 1 then inband = inband + c end
    end
    local frac = inband / N
    assert.is_true(frac > 0.75 and frac < 0.80, "fraction in band " .. frac)
    assert.is_true(s.min >= 1 and s.max <= 100000)
  end)

  it("pareto is skewed towards a", function()
    local s = stats(rand.pareto, 1, 1000)
    assert.is_true(s.min >= 1 and s.max <= 1000)
    local low = 0
    for v, c in pairs(s.counts) do if v <= 200 then low = low + c end end
    -- h = 0.2: the 80/20 rule
    assert.is_true(math.abs(low / N - 0.8) < 0.03, "share of the lowest 20% " .. low / N)
  end)

  it("zipfian follows k^-0.8", function()
    local s = stats(rand.zipfian, 1, 1000)
    assert.is_true(s.min >= 1 and s.max <= 1000)
    for k = 2, 8 do
      local ratio = s.counts[k] / s.counts[1]
      assert.is_true(math.abs(ratio - k ^ -0.8) < 0.05, "P(" .. k .. ")/P(1) = " .. ratio)
    end
  end)

  it("default follows --rand-type (special unless set)", function()
    local s = stats(rand.default, 1, 100000)
    local inband = 0
    for v, c in pairs(s.counts) do if v >= 49500 and v <= 50501 then inband = inband + c end end
    assert.is_true(inband / N > 0.7)
  end)

  it("unique never repeats", function()
    local seen = {}
    for _ = 1, N do
      local v = rand.unique()
      assert.is_nil(seen[v])
      seen[v] = true
      assert.is_true(v >= 0 and v <= 4294967295)
    end
  end)

  it("string follows its template", function()
    for _ = 1, 1000 do
      local s = rand.string("###-@@@-x#")
      assert.are.equal(10, #s)
      assert.is_truthy(s:match("^%d%d%d%-%l%l%l%-x%d$"), s)
    end
    assert.are.equal(500, #rand.string(string.rep("#", 500)))
  end)

  it("varstring has a length within bounds", function()
    for _ = 1, 1000 do
      local s = rand.varstring(5, 12)
      assert.is_true(#s >= 5 and #s <= 12)
      assert.is_truthy(s:match("^[0-z]+$"))
    end
  end)

  it("uniform_uint64 is a 64-bit cdata and uniform_double is in [0, 1)", function()
    local v = rand.uniform_uint64()
    assert.are.equal("cdata", type(v))
    assert.is_true(ffi.istype("uint64_t", v))
    local s = 0
    for _ = 1, N do
      local d = rand.uniform_double()
      assert.is_true(d >= 0 and d < 1)
      s = s + d
    end
    assert.is_true(math.abs(s / N - 0.5) < 0.01)
  end)

  it("exp has the requested mean", function()
    local s = 0
    for _ = 1, N do s = s + rand.exp(7) end
    assert.is_true(math.abs(s / N - 7) < 0.1)
  end)
end)
