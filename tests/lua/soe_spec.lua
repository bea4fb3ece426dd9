-- soe's parts that need no server: the mix chooser (the observed mix against the weights over
-- 20,000 transactions), --weights, the names and key ranges the generator and the
-- transactions share, and the generator's independence from the order units are made in.
local common = require("soe.common")
local mix = require("soe.mix")
local gen = require("soe.gen")

-- A uniform(a, b) from a seeded Lehmer stream, so a failure repeats.
local function stream(seed)
  local s = seed
  return function(a, b)
    s = s * 16807 % 2147483647
    return a + math.floor(s / 2147483647 * (b - a + 1))
  end
end

local function counts(deck, n)
  local c = {}
  for _ = 1, n do
    local k = deck:next()
    c[k] = (c[k] or 0) + 1
  end
  return c
end

describe("soe.mix", function()
  it("deals Swingbench's default mix within 1 point over 20,000 transactions (exactly, over whole decks)", function()
    local w, total = common.parse_weights("")
    assert.are.same({ 15, 10, 50, 40, 5, 5, 0, 0, 0 }, w)
    assert.are.equal(125, total)
    local c = counts(mix.new(w, stream(7)), 20000)
    for k, weight in ipairs(w) do
      local pct = 100 * (c[k] or 0) / 20000
      assert.is_true(math.abs(pct - 100 * weight / total) < 1, common.TXNS[k].code .. " " .. pct)
      assert.are.equal(20000 / total * weight, c[k] or 0) -- 160 whole decks
    end
  end)

  it("keeps any prefix of the deals within one deck of the weights", function()
    local w = common.parse_weights("SQ:2,WQ:2,WA:2,BP:7")
    local deck = mix.new(w, stream(99))
    local c, total = {}, 0
    for _, x in ipairs(w) do total = total + x end
    for n = 1, 3 * total + 17 do
      local k = deck:next()
      c[k] = (c[k] or 0) + 1
      for i, weight in ipairs(w) do
        -- dealt so far minus the share of the weights: never more than one deck's cards off
        assert.is_true(math.abs((c[i] or 0) - n * weight / total) <= weight, "after " .. n)
      end
    end
  end)

  it("repeats its deals from the same random numbers, and differs from others", function()
    local w = common.parse_weights("")
    local a, b, c = mix.new(w, stream(5)), mix.new(w, stream(5)), mix.new(w, stream(6))
    local same, diff = true, false
    for _ = 1, 500 do
      local x, y, z = a:next(), b:next(), c:next()
      same = same and x == y
      diff = diff or x ~= z
    end
    assert.is_true(same)
    assert.is_true(diff)
  end)
end)

describe("soe --weights", function()
  it("takes short names and names, case and spaces aside, over the defaults", function()
    local w = common.parse_weights("sq:2, Warehouse Query:3,wa:1,bp:0")
    assert.are.same({ 15, 10, 0, 40, 5, 5, 2, 3, 1 }, w)
    assert.are.same({ 1, 0, 0, 0, 0, 0, 0, 0, 0 }, (common.parse_weights("ncr:1,ucd:0,bp:0,op:0,po:0,bo:0")))
  end)

  it("refuses what it cannot use in one line", function()
    local cases = {
      { "XX:1", "invalid --weights item 'XX:1' (expected NAME:N with NAME one of NCR, UCD, BP, OP, PO, BO, SQ, WQ, WA)" },
      { "BP", "invalid --weights item 'BP' (expected NAME:N with NAME one of NCR, UCD, BP, OP, PO, BO, SQ, WQ, WA)" },
      { "BP:1.5", "invalid --weights item 'BP:1.5' (the weight is an integer >= 0)" },
      { "BP:-1", "invalid --weights item 'BP:-1' (the weight is an integer >= 0)" },
      { "NCR:0,UCD:0,BP:0,OP:0,PO:0,BO:0", "invalid --weights value 'NCR:0,UCD:0,BP:0,OP:0,PO:0,BO:0' (the weights must add up to 1 .. 100000, not 0)" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(common.parse_weights, c[1])
      assert.is_false(ok)
      assert.are.equal(c[2], err)
    end
  end)
end)

describe("soe data", function()
  it("names the first 3,200,000 customers apart, in lower case", function()
    local seen = {}
    for k = 1, 3200000, 997 do
      local n = common.first_name(k) .. " " .. common.last_name(k)
      assert.is_nil(seen[n], n)
      assert.are.equal(n:lower(), n)
      seen[n] = k
    end
    assert.are.equal(common.first_name(5) .. common.last_name(5), common.first_name(3200005) .. common.last_name(3200005))
  end)

  it("gives each customer 1 or 2 addresses, cards and orders, with no gap between customers", function()
    for _, per in ipairs({ common.ADDRESSES_PER, common.ORDERS_PER }) do
      local last = 0
      for k = 1, 5000 do
        local a, b = common.range(per, k)
        assert.are.equal(last + 1, a)
        assert.is_true(b == a or b == a + 1)
        last = b
      end
      assert.are.equal(math.floor(per * 5000), last)
    end
  end)

  it("makes the same rows for a unit whatever was made before it", function()
    local c = common.scale(0.003)
    assert.are.same({ customers = 3000, products = 1000, warehouses = 10 }, c)
    local first = gen.unit(c, { "customers", 2 }, true)
    gen.unit(c, { "catalog", 0 }, false)
    gen.unit(c, { "inventories", 4 }, true)
    local again = gen.unit(c, { "customers", 2 }, true)
    assert.are.same(first, again)
    -- customers 2001..3000, each with its first address and card preferred
    assert.are.equal(1000, #first.customers)
    assert.are.equal("2001", first.customers[1]:match("^(%d+)\t"))
    local a1, c1 = common.range(common.ADDRESSES_PER, 2001), common.range(common.CARDS_PER, 2001)
    assert.is_truthy(first.customers[1]:find("\t" .. a1 .. "\t" .. c1 .. "$"), first.customers[1])
    -- every order's total is the sum of its items
    local sum = {}
    for _, r in ipairs(first.order_items) do
      local o, price, q = r:match("^(%d+)\t%d+\t%d+\t([%d.]+)\t(%d+)\t")
      sum[o] = (sum[o] or 0) + math.floor(tonumber(price) * 100 + 0.5) * tonumber(q)
    end
    for _, r in ipairs(first.orders) do
      local fields = {}
      for f in (r .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = f end
      assert.are.equal(sum[fields[1]], math.floor(tonumber(fields[6]) * 100 + 0.5), r)
    end
    -- the INSERT form holds the same values
    local ins = gen.unit(c, { "customers", 2 }, false)
    assert.are.equal("(2001,'" .. common.first_name(2001) .. "','" .. common.last_name(2001) .. "',",
      ins.customers[1]:sub(1, #("(2001,'" .. common.first_name(2001) .. "','" .. common.last_name(2001) .. "',")))
  end)
end)
