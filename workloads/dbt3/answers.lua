-- dbt3.answers: the `answers` command. Runs the 22 queries once, with the parameters of query
-- stream --answers-stream (or the specification's validation parameters with --qualification),
-- and prints every result row in a form that compares across servers: trailing blanks of CHAR
-- columns dropped, decimals rounded to 2 places. Two servers loaded with the same seed and scale
-- factor print the same answers; at SF 1 with --qualification they are the specification's
-- answer set (doc/workloads/dbt3.md).
local common = require("dbt3.common")
local queries = require("dbt3.queries")

local M = {}
local fmt = string.format

local function normalise(v)
  if v == nil then return "NULL" end
  v = v:gsub("%s+$", "")
  if v:match("^%-?%d+%.%d+$") or v:match("^%-?%d+%.%d+[eE][-+]?%d+$") then
    local x = fmt("%.2f", tonumber(v))
    if x == "-0.00" then x = "0.00" end
    return x
  end
  return v
end

-- Runs a query's statements; returns its rows (arrays of normalised strings), or nil when the
-- statement timeout (timeout_secs, nil when none is set) cut it. Other errors are raised.
local function run_query(con, d, sqls, timeout_secs)
  local rows = {}
  for i, sql in ipairs(sqls) do
    local ok, err = pcall(function()
      local rs = con:query(sql)
      if rs == nil then return end
      local r = rs:fetch_row()
      while r do
        local out = {}
        for c = 1, rs.nfields do out[c] = normalise(r[c]) end
        rows[#rows + 1] = out
        r = rs:fetch_row()
      end
    end)
    if not ok then
      if timeout_secs and d.is_timeout(con) then
        -- Q15's view outlives a timed-out query: its last statement drops it.
        if i < #sqls then common.drop_q15_view(con, d, sqls[#sqls], timeout_secs) end
        return nil
      end
      error(err, 0)
    end
  end
  return rows
end

-- Returns false (exit 1) when a query timed out or, with --answers-dir, disagrees with the
-- answer set.
function M.answers()
  local s = common.settings()
  local set
  if s.answers_dir ~= "" then
    local err
    set, err = require("dbt3.compare").load(s.answers_dir)
    if not set then common.fail("%s", err) end
  end
  local con = common.connect()
  local cfg = common.ready_config(con)
  local d = common.dialect()
  require("dbt3.run").remove_leftovers(con, cfg.scale, s.answers_stream)
  local timeout_secs -- (nil: none)
  if s.query_timeout > 0 then
    if not d.statement_timeout then
      common.fail("%s dialect: no session statement timeout (run answers without --query-timeout)", d.name)
    end
    con:query(d.statement_timeout(s.query_timeout))
    timeout_secs = s.query_timeout
  end
  local stream = s.answers_stream
  local p = queries.params(s.seed_given and s.seed or cfg.seed, stream, s.qualification)
  local timed_out, agree, differ = 0, 0, {}
  for q = 1, 22 do
    local rows = run_query(con, d, queries.render(q, s.t, p[q], cfg.scale, d, stream), timeout_secs)
    if not rows then
      timed_out = timed_out + 1
      print(fmt("Q%d: timed out after %gs (%s)", q, s.query_timeout, queries.describe(p[q])))
    else
      print(fmt("Q%d: %d row%s (%s)", q, #rows, #rows == 1 and "" or "s", queries.describe(p[q])))
      for _, r in ipairs(rows) do print("  " .. table.concat(r, "\t")) end
      if set then
        local why = require("dbt3.compare").diff(rows, set[q])
        if why then differ[#differ + 1] = fmt("Q%d: %s", q, why) else agree = agree + 1 end
      end
    end
  end
  con:disconnect()
  if set then
    print(fmt("Compared with the answer set in %s (TPC-H precision rules): %d of 22 queries agree", s.answers_dir, agree))
    for _, line in ipairs(differ) do print("  differs: " .. line) end
  end
  if timed_out > 0 then print(fmt("%d of 22 queries timed out (--query-timeout=%g)", timed_out, s.query_timeout)) end
  return timed_out == 0 and #differ == 0
end

return M
