-- luabench.counter, .rate, .gauge in this state: one object per name, what each update stores in
-- this worker's slot (what the reporter adds up: tests/e2e/named_metrics_spec.lua checks the
-- reports), and each misuse raised at the caller's line.
describe("named metrics", function()
  it("one object per name and kind, in its worker's slot", function()
    local c = luabench.counter("nm_spec_c", { better = "lower" })
    assert.are.equal(c, luabench.counter("nm_spec_c", { better = "lower" }))
    assert.are.same({ "nm_spec_c", "counter" }, { c.name, c.kind })
    local r, g = luabench.rate("nm_spec_r"), luabench.gauge("nm_spec_g")
    assert.are_not.equal(c.id, r.id)
    assert.are_not.equal(r.id, g.id)
  end)

  it("a counter adds whole numbers, 1 when given none", function()
    local c = luabench.counter("nm_spec_add")
    local before = c._slot.sum
    c:add()
    c:add(41)
    c:add(2 ^ 53 - 1 - 42 - before)
    assert.are.equal(2 ^ 53 - 1, c._slot.sum) -- exact up to 2^53
  end)

  it("a rate counts outcomes and true outcomes", function()
    local r = luabench.rate("nm_spec_rate")
    for i = 1, 10 do r:add(i % 4 == 0) end
    assert.are.same({ 2, 10 }, { r._slot.sum, r._slot.count })
  end)

  it("a gauge keeps its last value, how often it was set and the window's extremes", function()
    local g = luabench.gauge("nm_spec_gauge")
    assert.are.equal(0, g._slot.count)
    for _, v in ipairs({ 5, -2.5, 9, 3 }) do g:set(v) end
    local s = g._slot
    assert.are.same({ 3, 4, -2.5, 9 }, { s.last, s.count, s.min, s.max })
    local t0 = tonumber(s.last_wall_ns)
    g:set(7)
    assert.is_true(tonumber(s.last_wall_ns) >= t0)
  end)

  local function raised(f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok)
    return err
  end

  it("raises each misuse at the caller's line", function()
    local c, r, g = luabench.counter("nm_spec_e1"), luabench.rate("nm_spec_e2"), luabench.gauge("nm_spec_e3")
    local cases = {
      { function() c:add(-1) end, "counter:add(n): n must be a whole number >= 0 (below 2^53), got -1" },
      { function() c:add(2 ^ 53) end, "counter:add(n): n must be a whole number >= 0 (below 2^53), got 9.007199254741e+15" },
      { function() c:add(0 / 0) end, "counter:add(n): n must be a whole number >= 0 (below 2^53), got nan" },
      { function() c:add({}) end, "counter:add(n): n must be a whole number >= 0 (below 2^53), got table" },
      { function() c.add({}, 1) end, "counter:add(n): called on table, not on this counter from luabench.counter() (call it with ':')" },
      { function() r.add(r, "yes") end, [[rate:add(outcome): outcome must be true or false, got "yes"]] },
      { function() r.add(g, true) end, "rate:add(outcome): called on table, not on this rate from luabench.rate() (call it with ':')" },
      { function() g:set(nil) end, "gauge:set(value): value must be a finite number, got nil" },
      { function() g:set(-1 / 0) end, "gauge:set(value): value must be a finite number, got -inf" },
      { function() luabench.counter() end, "luabench.counter(name): name must be letters, digits and '_' (at most 47, not starting with a digit or with 'p' and a digit), got nil" },
      { function() luabench.gauge("9lives") end, "luabench.gauge(name): name must be letters, digits and '_' (at most 47, not starting with a digit or with 'p' and a digit), got \"9lives\"" },
      { function() luabench.rate("line\nfeed") end, "luabench.rate(name): name must be letters, digits and '_' (at most 47, not starting with a digit or with 'p' and a digit), got \"line\\nfeed\"" },
      { function() luabench.counter("tps") end, "luabench.counter(name): \"tps\" is one of luabench's own figures in --threshold (avg, min, max, tps, qps, errors, events, reconnects): choose another name" },
      { function() luabench.counter("nm_spec_e1", { better = 1 }) end, "luabench.counter(name, options): options.better must be \"higher\", \"lower\" or \"neutral\", got 1" },
      { function() luabench.counter("nm_spec_e1", { [1] = "lower" }) end, "luabench.counter(name, options): unknown option 1 (options: better)" },
      { function() luabench.gauge("nm_spec_e1") end, "luabench.gauge(name): \"nm_spec_e1\" is declared already as a counter" },
      { function() luabench.counter("nm_spec_e1", { better = "higher" }) end, "luabench.counter(name, options): \"nm_spec_e1\" is declared already with better = \"neutral\"" },
    }
    for _, case in ipairs(cases) do
      local err = raised(case[1])
      assert.are.equal("named_metrics_spec.lua", err:match("([%w_]+%.lua):%d+: "), err)
      assert.are.equal(case[2], err:match("%.lua:%d+: (.*)$"))
    end
  end)
end)
