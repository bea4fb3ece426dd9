-- A sysbench report-to-CSV converter, as users' pipelines run one on sysbench's output.
--
-- This is a re-implementation, written for these tests, of the grammar of a published
-- converter (sysbench-output-parser's sb2csv, a Go program built on a regexp lexer and a
-- struct grammar); it is not that tool, which no registry reachable here publishes. What it
-- keeps is what makes such converters strict: the banner is tokenised like every other line
-- (a ',' inside the parentheses is an invalid token), fixed lines are skipped only when they
-- are exactly sysbench's, and the report must be sysbench's OLTP report from the first token
-- to the last (banner, header, intermediate lines, SQL/General/Latency/Threads blocks). One
-- change: the intermediate lines' "err/s" is also read as 1.0.20 prints it, "err/s:" (the
-- grammar as published has 1.0.19's spelling and so refuses every 1.0.20 report with
-- --report-interval, sysbench's own included).
--
--   local sb2csv = require("sb2csv")
--   local info, err = sb2csv.parse(text)   -- info: the fields, or nil and "line:col: message"
--   local csv = sb2csv.csv(info)           -- a header line and one row, tab-separated
local M = {}

-- The lexer: at each position the first alternative that matches (leftmost-first, as Go's
-- regexp alternation), anchored where the previous token ended. Unnamed ones are skipped.
local fixed_lines = {
  "Running the test with following options:",
  "Initializing random number generator from current time",
  "Initializing worker threads...",
}

local function at_line_start(s, i) return i == 1 or s:sub(i - 1, i - 1) == "\n" end

local function next_token(s, i)
  local ws = s:match("^%s+", i)
  if ws then return nil, i + #ws end
  if at_line_start(s, i) then
    for _, l in ipairs(fixed_lines) do
      local e = i + #l
      if s:sub(i, e - 1) == l and (e > #s or s:sub(e, e) == "\n") then return nil, e end
    end
    if s:sub(i, i + 15) == "Threads started!" then return nil, i + 16 end
  end
  if s:sub(i, i + 3) == "(ms," then return { type = "LatPrefix", value = "(ms," }, i + 4 end
  if s:sub(i, i + 2) == "%):" then return { type = "LatSuffix", value = "%):" }, i + 3 end
  local v = s:match("^%d+%.%d+%.[%w_%-]+", i)
  if v then return { type = "VersionNumber", value = v }, i + #v end
  v = s:match("^%d+%.%d+", i)
  if v then
    -- (?:\.\d+)+: more fractional groups belong to the same token
    local more = s:match("^[%.%d]*", i + #v)
    while more and more:match("^%.%d+") do
      local g = more:match("^%.%d+")
      v, more = v .. g, more:sub(#g + 1)
    end
    return { type = "Float", value = v }, i + #v
  end
  v = s:match("^[+-]?%d+", i)
  if v then return { type = "Int", value = v }, i + #v end
  v = s:match("^[%a%d][%w%%_:%./%-]*", i)
  if v then return { type = "Ident", value = v }, i + #v end
  v = s:match("^[%(%)%[%]/:]", i)
  if v then return { type = "Punct", value = v }, i + 1 end
  return false, i
end

local function position(s, i)
  local line, col = 1, 1
  for p = 1, i - 1 do
    if s:sub(p, p) == "\n" then line, col = line + 1, 1 else col = col + 1 end
  end
  return line .. ":" .. col
end

function M.tokens(s)
  local toks, i = {}, 1
  while i <= #s do
    local t, j = next_token(s, i)
    if t == false then
      return nil, string.format("%s: invalid token '%s'", position(s, i), s:sub(i, i))
    end
    if t then t.pos = position(s, i); toks[#toks + 1] = t end
    i = j
  end
  return toks
end

-- The grammar: a sequence of literal tokens (matched by their text, whatever their type) and
-- typed captures, as the converter's struct tags declare them.
local function parser(toks)
  local p, k = {}, 1
  local function fail(what)
    local t = toks[k]
    error({ msg = t and string.format("%s: unexpected token \"%s\" (expected %s)", t.pos, t.value, what)
      or string.format("unexpected end of input (expected %s)", what) }, 0)
  end
  function p.lit(...)
    for _, want in ipairs({ ... }) do
      if not toks[k] or toks[k].value ~= want then fail('"' .. want .. '"') end
      k = k + 1
    end
  end
  function p.cap(ty)
    local t = toks[k]
    if not t or t.type ~= ty then fail("<" .. ty:lower() .. ">") end
    k = k + 1
    return ty == "Int" and tonumber(t.value) or ty == "Float" and tonumber(t.value) or t.value
  end
  function p.peek(v) return toks[k] and toks[k].value == v end
  function p.peek_type(ty) return toks[k] and toks[k].type == ty end
  function p.eof() if toks[k] then fail("<EOF>") end end
  return p
end

local function per_sec(p)
  local n = p.cap("Int")
  p.lit("(")
  local r = p.cap("Float")
  p.lit("per", "sec.", ")")
  return n, r
end

local function grammar(p)
  local r = { reports = {} }
  p.lit("sysbench")
  r.version = p.cap("VersionNumber")
  p.lit("(")
  r.add_info = {}
  while p.peek_type("Ident") or p.peek_type("VersionNumber") do r.add_info[#r.add_info + 1] = p.cap(p.peek_type("Ident") and "Ident" or "VersionNumber") end
  p.lit(")")
  p.lit("Number", "of", "threads:")
  r.threads = p.cap("Int")
  p.lit("Report", "intermediate", "results", "every")
  r.report_interval = p.cap("Int")
  p.lit("second", "(", "s", ")")
  while p.peek("[") do
    p.lit("[")
    local i = {}
    i.elapsed = p.cap("Int")
    p.lit("s", "]", "thds:")
    i.threads = p.cap("Int")
    p.lit("tps:")
    i.tps = p.cap("Float")
    p.lit("qps:")
    i.qps = p.cap("Float")
    p.lit("(", "r/w/o:")
    i.read = p.cap("Float")
    p.lit("/")
    i.write = p.cap("Float")
    p.lit("/")
    i.other = p.cap("Float")
    p.lit(")", "lat", "(ms,")
    i.pct = p.cap("Int")
    p.lit("%):")
    i.latency = p.cap("Float")
    -- the published grammar has 1.0.19's "err/s"; 1.0.20 prints "err/s:"
    if p.peek("err/s:") then p.lit("err/s:") else p.lit("err/s") end
    i.errors = p.cap("Float")
    p.lit("reconn/s:")
    i.reconnects = p.cap("Float")
    r.reports[#r.reports + 1] = i
  end
  p.lit("SQL", "statistics:", "queries", "performed:")
  p.lit("read:")
  r.read = p.cap("Int")
  p.lit("write:")
  r.write = p.cap("Int")
  p.lit("other:")
  r.other = p.cap("Int")
  p.lit("total:")
  r.total = p.cap("Int")
  p.lit("transactions:")
  r.transactions, r.tps = per_sec(p)
  p.lit("queries:")
  r.queries, r.qps = per_sec(p)
  p.lit("ignored", "errors:")
  r.ignored_errors = per_sec(p)
  p.lit("reconnects:")
  r.reconnects = per_sec(p)
  p.lit("General", "statistics:", "total", "time:")
  r.total_time = p.cap("Float")
  p.lit("s", "total", "number", "of", "events:")
  r.events = p.cap("Int")
  p.lit("Latency", "(", "ms", ")", ":", "min:")
  r.lat_min = p.cap("Float")
  p.lit("avg:")
  r.lat_avg = p.cap("Float")
  p.lit("max:")
  r.lat_max = p.cap("Float")
  r.lat_pct = p.cap("Int")
  p.lit("th", "percentile:")
  r.lat_pct_value = p.cap("Float")
  p.lit("sum:")
  r.lat_sum = p.cap("Float")
  p.lit("Threads", "fairness:", "events", "(", "avg/stddev", ")", ":")
  r.events_avg = p.cap("Float")
  p.lit("/")
  r.events_stddev = p.cap("Float")
  p.lit("execution", "time", "(", "avg/stddev", ")", ":")
  r.time_avg = p.cap("Float")
  p.lit("/")
  r.time_stddev = p.cap("Float")
  p.eof()
  return r
end

function M.parse(text)
  local toks, err = M.tokens(text)
  if not toks then return nil, err end
  local ok, r = pcall(grammar, parser(toks))
  if not ok then return nil, type(r) == "table" and r.msg or tostring(r) end
  return r
end

-- The converter's output: one header line and one row, tab-separated.
function M.csv(r)
  local cols = { "version", "threads", "tps", "qps", "read", "write", "other", "total", "ignored-errors",
    "recoonects", "Latency(min)", "Latency(avg)", "Latency(max)", "Latency(Percentile)" }
  local row = { r.version, r.threads, r.tps, r.qps, r.read, r.write, r.other, r.total, r.ignored_errors,
    r.reconnects, r.lat_min, r.lat_avg, r.lat_max, string.format("%.2f (%d%%)", r.lat_pct_value, r.lat_pct) }
  -- numbers as Go writes a float64 for CSV: the shortest form that reads back the same
  local function shortest(v)
    for digits = 1, 17 do
      local t = string.format("%." .. digits .. "g", v)
      if tonumber(t) == v and not t:find("e") then return t end
    end
    return string.format("%.17g", v)
  end
  for i, v in ipairs(row) do row[i] = type(v) == "number" and shortest(v) or tostring(v) end
  return table.concat(cols, "\t") .. "\n" .. table.concat(row, "\t") .. "\n"
end

return M
