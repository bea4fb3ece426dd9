-- Statistics over repeated runs, for `luabench compare` and `luabench report` with several runs
-- per label (and `luabench study`): the median of the runs, its confidence interval from order
-- statistics, the Mann-Whitney U test of two sets of runs (exact for small samples, ties
-- included), the interval of the ratio of two sets (from the pairwise ratios, the test's own
-- dual), and how many runs a test needs before it can find anything at a given level.
-- The rank test assumes no distribution: the runs of one configuration on a shared machine are
-- anything but normal. Below the runs it needs (3 against 3 can give no p under 0.1), a
-- small-sample rule decides instead: Welch's t-test on the runs' logarithms, and only when every
-- run of one set lies beyond every run of the other.
local M = {}

M.ALPHA = 0.05
M.CONFIDENCE = 0.95
-- Above this many runs in all the exact distributions give way to the normal approximation
-- (the exact one costs N x n1 x N^2 additions).
M.EXACT_MAX = 50

function M.sorted(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  return s
end

function M.median(xs)
  local n = #xs
  if n == 0 then return nil end
  local s = M.sorted(xs)
  if n % 2 == 1 then return s[(n + 1) / 2] end
  return (s[n / 2] + s[n / 2 + 1]) / 2
end

-- n choose k as a double (exact up to 2^53: C(50, 25) is 1.3e14).
function M.choose(n, k)
  if k < 0 or k > n then return 0 end
  if k > n - k then k = n - k end
  local c = 1
  for i = 1, k do c = c * (n - k + i) / i end
  return math.floor(c + 0.5)
end

-- P(X <= k) for X ~ Binomial(n, 1/2).
local function binom_half_cdf(n, k)
  local sum = 0
  for i = 0, k do sum = sum + M.choose(n, i) end
  return sum / 2 ^ n
end

-- The median's interval: [x(k), x(n+1-k)] of the sorted runs, with the largest k whose coverage
-- 1 - 2 P(Bin(n, 1/2) <= k-1) is at least `confidence`. Returns lo, hi and the coverage. With
-- too few runs for that confidence (fewer than 6 for 95 %) the interval is the whole range of
-- the runs and its coverage says how sure it is (0.75 for 3 runs, 0 for one).
function M.median_interval(xs, confidence)
  confidence = confidence or M.CONFIDENCE
  local n = #xs
  if n == 0 then return nil end
  local s = M.sorted(xs)
  local k = 1
  while k + 1 <= (n + 1) / 2 and 1 - 2 * binom_half_cdf(n, k) >= confidence do k = k + 1 end
  local coverage = n == 1 and 0 or 1 - 2 * binom_half_cdf(n, k - 1)
  return s[k], s[n + 1 - k], coverage
end

-- The runs a median interval needs to reach `confidence` (6 for 95 %).
function M.runs_for_interval(confidence)
  confidence = confidence or M.CONFIDENCE
  local n = 1
  while 1 - 2 * binom_half_cdf(n, 0) < confidence do n = n + 1 end
  return n
end

-- Ranks of the values of x and y together, ties sharing their mean rank, doubled so that they
-- are integers: returns the doubled ranks of x and of y.
local function doubled_ranks(xs, ys)
  local all = {}
  for _, v in ipairs(xs) do all[#all + 1] = { v = v, x = true } end
  for _, v in ipairs(ys) do all[#all + 1] = { v = v, x = false } end
  table.sort(all, function(a, b) return a.v < b.v end)
  local i = 1
  while i <= #all do
    local j = i
    while j < #all and all[j + 1].v == all[i].v do j = j + 1 end
    for k = i, j do all[k].r2 = i + j end -- 2 x the mean of ranks i..j
    i = j + 1
  end
  local rx, ry = {}, {}
  for _, a in ipairs(all) do
    if a.x then rx[#rx + 1] = a.r2 else ry[#ry + 1] = a.r2 end
  end
  return rx, ry
end

-- counts[s] = how many subsets of size k of `values` (non-negative integers) sum to s.
local function subset_sums(values, k)
  local dp = { [0] = { [0] = 1 } } -- dp[j][s]: subsets of size j summing to s
  for _, v in ipairs(values) do
    for j = math.min(k, #values), 1, -1 do
      local from = dp[j - 1]
      if from then
        local to = dp[j] or {}
        dp[j] = to
        for s, c in pairs(from) do to[s + v] = (to[s + v] or 0) + c end
      end
    end
  end
  return dp[k] or {}
end

-- The smallest two-sided p-value any outcome can give n1 against n2 runs: 2 / C(n1+n2, n1).
function M.min_p(n1, n2)
  return math.min(1, 2 / M.choose(n1 + n2, n1))
end

-- Runs per label a two-sided test at alpha needs before it can call anything significant
-- (4 at 0.05: 3 against 3 can give no p below 0.1).
function M.runs_needed(alpha)
  alpha = alpha or M.ALPHA
  local n = 1
  while M.min_p(n, n) > alpha do n = n + 1 end
  return n
end

local function normal_sf(z)
  -- upper tail of the standard normal (Abramowitz-Stegun 7.1.26 on erfc, |error| < 1.5e-7)
  local x = math.abs(z) / math.sqrt(2)
  local t = 1 / (1 + 0.3275911 * x)
  local y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  local erfc = y * math.exp(-x * x)
  return z >= 0 and erfc / 2 or 1 - erfc / 2
end
M.normal_sf = normal_sf

-- The Mann-Whitney U test of xs against ys, two-sided: returns { u = U of xs, p = p-value,
-- exact = bool }. Exact (the permutation distribution of the rank sum, ties at their mean rank)
-- when there are at most EXACT_MAX runs in all, else the normal approximation with the tie
-- and continuity corrections.
function M.mann_whitney(xs, ys)
  local n1, n2 = #xs, #ys
  if n1 == 0 or n2 == 0 then return nil end
  local rx, ry = doubled_ranks(xs, ys)
  local w2 = 0
  for _, r in ipairs(rx) do w2 = w2 + r end
  local n = n1 + n2
  local u = w2 / 2 - n1 * (n1 + 1) / 2
  local mean2 = n1 * (n + 1) -- E[2W]
  local dev = math.abs(w2 - mean2)
  if n <= M.EXACT_MAX then
    local all = {}
    for _, r in ipairs(rx) do all[#all + 1] = r end
    for _, r in ipairs(ry) do all[#all + 1] = r end
    local extreme, total = 0, 0
    for s, c in pairs(subset_sums(all, n1)) do
      total = total + c
      if math.abs(s - mean2) >= dev then extreme = extreme + c end
    end
    return { u = u, p = math.min(1, extreme / total), exact = true }
  end
  -- ties shrink the variance: sum over tie groups of (t^3 - t)
  local counts = {}
  for _, r in ipairs(rx) do counts[r] = (counts[r] or 0) + 1 end
  for _, r in ipairs(ry) do counts[r] = (counts[r] or 0) + 1 end
  local ties = 0
  for _, t in pairs(counts) do ties = ties + t ^ 3 - t end
  local var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
  if var <= 0 then return { u = u, p = 1, exact = false } end
  local z = (math.abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
  return { u = u, p = math.min(1, 2 * normal_sf(math.max(z, 0))), exact = false }
end

-- The number of pairs k such that the U statistic's own tails below k pairs hold at most
-- (1 - confidence) / 2 of its null distribution (no ties): the ratio interval is the k-th
-- smallest to the k-th largest pairwise ratio. 0 when not even one pair can be cut.
local function cut_pairs(n1, n2, confidence)
  local tail = (1 - confidence) / 2
  local total = M.choose(n1 + n2, n1)
  if n1 + n2 <= M.EXACT_MAX then
    local ranks = {}
    for i = 1, n1 + n2 do ranks[i] = i end
    local sums = subset_sums(ranks, n1)
    local base = n1 * (n1 + 1) / 2
    local cum, k = 0, 0
    while true do
      cum = cum + (sums[base + k] or 0) -- P(U = k)
      if cum / total > tail then return k end
      k = k + 1
    end
  end
  -- normal approximation of the U distribution's quantile
  local z = 1.959964
  if confidence ~= 0.95 then
    -- bisection on the upper tail
    local lo, hi = 0, 10
    for _ = 1, 60 do
      local mid = (lo + hi) / 2
      if normal_sf(mid) > tail then lo = mid else hi = mid end
    end
    z = (lo + hi) / 2
  end
  local k = math.floor(n1 * n2 / 2 - z * math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12))
  return math.max(k, 0)
end

-- The interval of ys / xs: the pairwise ratios y/x sorted, from the (k+1)-th smallest to the
-- (k+1)-th largest, k from the U distribution. Returns lo, hi and the coverage; with too few
-- runs for `confidence` the whole range of the ratios and its (lower) coverage. nil when an x is
-- not positive (a ratio to zero has no meaning).
function M.ratio_interval(xs, ys, confidence)
  confidence = confidence or M.CONFIDENCE
  local n1, n2 = #xs, #ys
  if n1 == 0 or n2 == 0 then return nil end
  local ratios = {}
  for _, x in ipairs(xs) do
    if not (x > 0) then return nil end
    for _, y in ipairs(ys) do ratios[#ratios + 1] = y / x end
  end
  table.sort(ratios)
  local k = cut_pairs(n1, n2, confidence)
  local m = #ratios
  local coverage
  if k == 0 then
    coverage = 1 - M.min_p(n1, n2)
  else
    -- the coverage of cutting k pairs from each end: 1 - 2 P(U <= k-1)
    local ranks = {}
    for i = 1, n1 + n2 do ranks[i] = i end
    local cum = 0
    if n1 + n2 <= M.EXACT_MAX then
      local sums = subset_sums(ranks, n1)
      local base = n1 * (n1 + 1) / 2
      for u = 0, k - 1 do cum = cum + (sums[base + u] or 0) end
      coverage = 1 - 2 * cum / M.choose(n1 + n2, n1)
    else
      coverage = confidence
    end
  end
  if k >= m / 2 then k = math.floor((m - 1) / 2) end
  return ratios[k + 1], ratios[m - k], coverage
end

-- log Gamma(x), x > 0 (Lanczos, g = 7, 9 terms: |relative error| < 1e-13 over the range used).
local LANCZOS = { 0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61503916999185, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7 }
local function log_gamma(x)
  if x < 0.5 then return math.log(math.pi / math.abs(math.sin(math.pi * x))) - log_gamma(1 - x) end
  x = x - 1
  local a = LANCZOS[1]
  local t = x + 7.5
  for i = 2, 9 do a = a + LANCZOS[i] / (x + i - 1) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
end

-- The continued fraction of the incomplete beta function (modified Lentz), for x < (a+1)/(a+b+2).
local function beta_fraction(a, b, x)
  local tiny = 1e-300
  local c, d = 1, 1 - (a + b) * x / (a + 1)
  if math.abs(d) < tiny then d = tiny end
  d = 1 / d
  local h = d
  for m = 1, 300 do
    local m2 = 2 * m
    local num = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
    d = 1 + num * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + num / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    h = h * d * c
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
    d = 1 + num * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + num / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    local step = d * c
    h = h * step
    if math.abs(step - 1) < 1e-14 then break end
  end
  return h
end

-- The regularized incomplete beta function I_x(a, b).
local function incomplete_beta(x, a, b)
  if x <= 0 then return 0 end
  if x >= 1 then return 1 end
  local front = math.exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * math.log(x) + b * math.log(1 - x))
  if x < (a + 1) / (a + b + 2) then return front * beta_fraction(a, b, x) / a end
  return 1 - front * beta_fraction(b, a, 1 - x) / b
end

-- Two-sided p-value of Student's t with df degrees of freedom (df need not be whole).
function M.t_p(t, df)
  if t ~= t then return 1 end
  if t == math.huge or t == -math.huge then return 0 end
  return incomplete_beta(df / (df + t * t), df / 2, 0.5)
end

-- Welch's t-test of log(ys) against log(xs), two-sided: { t, df, p }, or nil when a set has
-- fewer than 2 runs or a value is not positive (a ratio of throughputs is what moves, so the
-- logarithms are the scale on which a run's noise is alike at any level).
function M.welch_log(xs, ys)
  local n1, n2 = #xs, #ys
  if n1 < 2 or n2 < 2 then return nil end
  local function moments(vs)
    local sum = 0
    for _, v in ipairs(vs) do
      if not (v > 0) then return nil end
      sum = sum + math.log(v)
    end
    local mean, ss = sum / #vs, 0
    for _, v in ipairs(vs) do ss = ss + (math.log(v) - mean) ^ 2 end
    return mean, ss / (#vs - 1)
  end
  local m1, v1 = moments(xs)
  local m2, v2 = moments(ys)
  if not m1 or not m2 then return nil end
  local s1, s2 = v1 / n1, v2 / n2
  local se2 = s1 + s2
  if se2 == 0 then
    return { t = m1 == m2 and 0 or math.huge, df = n1 + n2 - 2, p = m1 == m2 and 1 or 0 }
  end
  local t = (m2 - m1) / math.sqrt(se2)
  local df = se2 * se2 / (s1 * s1 / (n1 - 1) + s2 * s2 / (n2 - 1))
  return { t = t, df = df, p = M.t_p(t, df) }
end

-- True when every value of one set lies above every value of the other.
function M.separated(xs, ys)
  local sx, sy = M.sorted(xs), M.sorted(ys)
  return sx[#sx] < sy[1] or sy[#sy] < sx[1]
end

-- Everything a comparison of two sets of runs says about one figure: the medians, the ratio of
-- the medians and its interval, the test's p-value and its verdict: significant = true (the
-- runs differ at alpha), false (they do not, or there are too few runs to tell). test says which
-- decided: "U" (the rank test), "t-log" (too few runs for it: too_few = true, runs_needed per
-- label for the rank test; the small-sample rule, p from Welch's t-test on the logarithms and
-- significant only when the sets do not overlap either) or nil (too few even for that).
function M.compare(xs, ys, alpha, confidence)
  alpha = alpha or M.ALPHA
  if #xs == 0 or #ys == 0 then return nil end
  local out = { n = { #xs, #ys }, medians = { M.median(xs), M.median(ys) } }
  local a, b = out.medians[1], out.medians[2]
  if a ~= 0 then
    out.ratio = b / a
  elseif b == 0 then
    out.ratio = 1
  end
  out.ratio_lo, out.ratio_hi, out.ratio_coverage = M.ratio_interval(xs, ys, confidence)
  local test = M.mann_whitney(xs, ys)
  out.p, out.u = test.p, test.u
  if M.min_p(#xs, #ys) > alpha then
    out.too_few = true
    out.runs_needed = M.runs_needed(alpha)
    out.significant = false
    local w = M.welch_log(xs, ys)
    if w then
      out.test, out.p, out.t, out.df = "t-log", w.p, w.t, w.df
      out.significant = w.p <= alpha and M.separated(xs, ys)
    end
  else
    out.test = "U"
    out.significant = test.p <= alpha
  end
  return out
end

return M
