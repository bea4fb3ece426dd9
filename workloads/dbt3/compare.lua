-- dbt3.compare: a query's answer compared with the TPC-H kit's published answer file
-- (DIR/qN.out: a header line, then `|`-separated, blank-padded rows) under the specification's
-- precision rules (clause 2.1.3.5), column by column as the kit's colprecision.txt types them:
--   str, int, cnt   equal (strings without their padding; numbers as numbers)
--   num             a singleton number: equal to the cent
--   sum             within 100 of the published value
--   avg, rat        rounded to the cent, within 1 % of the published value
local M = {}
local fmt = string.format

local function trim(v) return (v:gsub("^%s+", ""):gsub("%s+$", "")) end

local function split(line, sep)
  local out = {}
  for field in (line .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = trim(field) end
  return out
end

local function read_lines(path)
  local f, err = io.open(path)
  if not f then return nil, err end
  local lines = {}
  for line in f:lines() do lines[#lines + 1] = line end
  f:close()
  return lines
end

-- The answer set in dir: per query its column names, column types and rows (arrays of strings),
-- or nil and a one-line error.
function M.load(dir)
  local types, err = read_lines(dir .. "/colprecision.txt")
  if not types then return nil, fmt("cannot read the precision rules '%s/colprecision.txt': %s", dir, err) end
  local set = {}
  for q = 1, 22 do
    local path = fmt("%s/q%d.out", dir, q)
    local lines, e = read_lines(path)
    if not lines then return nil, fmt("cannot read the answer file '%s': %s", path, e) end
    local a = { names = split(lines[1] or "", "|"), types = {}, rows = {} }
    for t in (types[q] or ""):gmatch("%S+") do a.types[#a.types + 1] = t end
    for i = 2, #lines do
      if lines[i]:match("%S") then a.rows[#a.rows + 1] = split(lines[i], "|") end
    end
    set[q] = a
  end
  return set
end

local function round2(x) return math.floor(x * 100 + 0.5) / 100 end

-- Whether `got` (luabench's normalised text) agrees with `want` (the published text) for a
-- column of `kind`.
function M.agrees(kind, got, want)
  -- The kit's files pad every column, so blanks at either end of a value cannot be told apart.
  got, want = trim(got), trim(want)
  if kind == "str" or kind == nil then return got == want end
  local g, w = tonumber(got), tonumber(want)
  if not g or not w then return got == want end
  if kind == "int" or kind == "cnt" then return g == w end
  if kind == "num" then return math.abs(g - w) < 0.005 end
  if kind == "sum" then return math.abs(g - w) <= 100 end
  -- avg, rat: 0.99 v <= round(r, 2) <= 1.01 v (v of either sign)
  local r, lo, hi = round2(g), 0.99 * w, 1.01 * w
  if lo > hi then lo, hi = hi, lo end
  return r >= lo - 1e-9 and r <= hi + 1e-9
end

local RULE = { str = "equal", int = "equal", cnt = "equal", num = "equal to the cent",
  sum = "within 100", avg = "within 1%", rat = "within 1%" }

-- Compares rows (arrays of strings) with the published answer `a`; returns nil when they agree,
-- else the first difference as one line.
function M.diff(rows, a)
  if #rows ~= #a.rows then
    return fmt("%d rows, the answer set has %d", #rows, #a.rows)
  end
  for i, want in ipairs(a.rows) do
    local got = rows[i]
    if #got ~= #want then
      return fmt("row %d has %d columns, the answer set's %d", i, #got, #want)
    end
    for c = 1, #want do
      local kind = a.types[c]
      if not M.agrees(kind, got[c], want[c]) then
        return fmt("row %d column %d (%s): %s, the answer set has %s (%s: %s)", i, c, a.names[c] or "?",
          got[c], want[c], kind or "str", RULE[kind] or "equal")
      end
    end
  end
  return nil
end

return M
