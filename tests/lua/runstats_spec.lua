-- luabench.internal.runstats: medians, order-statistic intervals, the Mann-Whitney U test and the ratio
-- interval, against values worked out by hand (the counts of subsets are in the comments).
local rs = require("luabench.internal.runstats")

local function near(a, b, eps) return math.abs(a - b) <= (eps or 1e-9) end

describe("luabench.internal.runstats", function()
  it("takes medians of odd and even counts", function()
    assert.are.equal(2, rs.median({ 3, 1, 2 }))
    assert.are.equal(2.5, rs.median({ 4, 1, 3, 2 }))
    assert.is_nil(rs.median({}))
  end)

  it("gives the median's interval from order statistics", function()
    -- n = 6: [x1, x6] covers 1 - 2/64 = 0.96875; [x2, x5] only 1 - 14/64
    local lo, hi, cov = rs.median_interval({ 6, 1, 5, 2, 4, 3 })
    assert.are.same({ 1, 6 }, { lo, hi })
    assert.is_true(near(cov, 0.96875))
    -- n = 10: [x2, x9] covers 1 - 2 x 11/1024; [x3, x8] 1 - 2 x 56/1024 = 0.89 < 0.95
    lo, hi, cov = rs.median_interval({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })
    assert.are.same({ 2, 9 }, { lo, hi })
    assert.is_true(near(cov, 1 - 22 / 1024))
    -- n = 3: too few for 95 %: the range, covering 1 - 2/8
    lo, hi, cov = rs.median_interval({ 5, 7, 6 })
    assert.are.same({ 5, 7 }, { lo, hi })
    assert.is_true(near(cov, 0.75))
    lo, hi, cov = rs.median_interval({ 9 })
    assert.are.same({ 9, 9, 0 }, { lo, hi, cov })
    assert.are.equal(6, rs.runs_for_interval(0.95))
  end)

  it("computes exact Mann-Whitney p-values", function()
    -- complete separation of 3 and 3: 2 of C(6,3) = 20 orderings are as extreme
    local t = rs.mann_whitney({ 1, 2, 3 }, { 4, 5, 6 })
    assert.are.equal(0, t.u)
    assert.is_true(near(t.p, 0.1))
    assert.is_true(t.exact)
    -- 4 and 4: 2 of 70
    assert.is_true(near(rs.mann_whitney({ 1, 2, 3, 4 }, { 5, 6, 7, 8 }).p, 2 / 70))
    -- a tie: ranks 1 2 3.5 3.5 5 6 7 8, x = {1, 2, 3.5, 5}, rank sum 11.5 against a mean of 18.
    -- Subsets of 4 summing to <= 11.5: {1,2,3.5,3.5} and {1,2,3.5,5} twice; to >= 24.5:
    -- {8,7,6,5} and {8,7,6,3.5} twice: 6 of 70.
    t = rs.mann_whitney({ 1, 2, 3, 4 }, { 3, 5, 6, 7 })
    assert.are.equal(1.5, t.u)
    assert.is_true(near(t.p, 6 / 70), t.p)
    -- identical runs: nothing to tell
    assert.are.equal(1, rs.mann_whitney({ 5, 5, 5 }, { 5, 5, 5 }).p)
    -- interleaved: x = {1,3,5}, y = {2,4,6}: U = 3 (deviation 1.5 from 4.5), 14 of 20 as far out
    assert.is_true(near(rs.mann_whitney({ 1, 3, 5 }, { 2, 4, 6 }).p, 14 / 20))
  end)

  it("switches to the normal approximation for many runs", function()
    local x, y = {}, {}
    for i = 1, 30 do x[i] = i; y[i] = 30 + i end
    local t = rs.mann_whitney(x, y)
    assert.is_false(t.exact)
    -- z = (450 - 0.5) / sqrt(30 x 30 x 61 / 12) = 6.6: p about 4e-11
    assert.is_true(t.p < 1e-9 and t.p > 0, t.p)
    assert.is_true(near(rs.normal_sf(1.959964), 0.025, 1e-6))
  end)

  it("says how many runs a test needs", function()
    assert.is_true(near(rs.min_p(3, 3), 0.1))
    assert.are.equal(4, rs.runs_needed(0.05))
    assert.are.equal(3, rs.runs_needed(0.1))
    assert.are.equal(5, rs.runs_needed(0.01)) -- 2/252 = 0.0079
  end)

  it("gives the ratio's interval from the pairwise ratios", function()
    -- 3 and 3: no pair can be cut at 95 %: the range of the 9 ratios, covering 1 - 2/20
    local lo, hi, cov = rs.ratio_interval({ 10, 11, 12 }, { 20, 22, 24 })
    assert.is_true(near(lo, 20 / 12) and near(hi, 24 / 10))
    assert.is_true(near(cov, 0.9))
    -- 5 and 5: P(U <= 2) = (1 + 1 + 2)/252 <= 0.025 < P(U <= 3) = 7/252: cut 3 from each end
    local x, y = { 1, 2, 3, 4, 5 }, { 10, 20, 30, 40, 50 }
    lo, hi, cov = rs.ratio_interval(x, y)
    local r = {}
    for _, a in ipairs(x) do for _, b in ipairs(y) do r[#r + 1] = b / a end end
    table.sort(r)
    assert.is_true(near(lo, r[4]) and near(hi, r[22]), lo .. " " .. hi)
    assert.is_true(near(cov, 1 - 8 / 252))
    assert.is_nil(rs.ratio_interval({ 0, 1 }, { 1, 2 }))
  end)

  it("gives Student's t p-values and Welch's test on logarithms", function()
    -- two-sided critical values of t at 0.05 and 0.01 from the tables
    assert.is_true(near(rs.t_p(2.776445, 4), 0.05, 1e-6))
    assert.is_true(near(rs.t_p(4.604095, 4), 0.01, 1e-6))
    assert.is_true(near(rs.t_p(12.7062, 1), 0.05, 1e-5))
    assert.is_true(near(rs.t_p(2.570582, 5), 0.05, 1e-6))
    assert.are.equal(1, rs.t_p(0, 5))
    -- by hand: logs of {100, 102, 98} and {133, 130, 137}: t = 15.08, df = 3.73
    local w = rs.welch_log({ 100, 102, 98 }, { 133, 130, 137 })
    assert.is_true(near(w.t, 15.0759, 1e-3) and near(w.df, 3.73392, 1e-4), w.t .. " " .. w.df)
    assert.is_true(w.p < 0.001)
    assert.is_nil(rs.welch_log({ 1 }, { 2, 3 }))
    assert.is_nil(rs.welch_log({ 0, 1 }, { 2, 3 }))
    assert.are.same({ 1, 0 }, { rs.welch_log({ 5, 5 }, { 5, 5 }).p, rs.welch_log({ 5, 5 }, { 6, 6 }).p })
  end)

  it("compares two sets of runs", function()
    local c = rs.compare({ 100, 102, 98 }, { 130, 133, 128 })
    assert.are.equal(100, c.medians[1])
    assert.is_true(near(c.ratio, 1.3))
    -- too few for the rank test: the small-sample rule decides (the sets do not overlap)
    assert.is_true(c.too_few)
    assert.are.equal(4, c.runs_needed)
    assert.are.equal("t-log", c.test)
    assert.is_true(c.significant and c.p < 0.001)
    c = rs.compare({ 100, 102, 98 }, { 130, 133, 99 })
    assert.is_false(c.significant) -- overlapping
    c = rs.compare({ 100, 102 }, { 130 })
    assert.is_nil(c.test)
    assert.is_false(c.significant)
    c = rs.compare({ 100, 102, 98, 101 }, { 130, 133, 128, 131 })
    assert.is_true(c.significant)
    assert.is_falsy(c.too_few)
    assert.is_true(c.ratio_lo > 1)
    c = rs.compare({ 100, 102, 98, 101 }, { 99, 103, 100, 101 })
    assert.is_false(c.significant)
    assert.is_true(c.ratio_lo < 1 and c.ratio_hi > 1)
  end)
end)
