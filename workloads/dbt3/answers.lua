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

function M.answers()
  local s = common.settings()
  local con = common.connect()
  local cfg = common.ready_config(con)
  local d = common.dialect()
  local left = require("dbt3.run").remove_leftovers(con, cfg.scale, 0)
  if left > 0 then print(fmt("Removed %d orders an interrupted run's refresh functions left behind", left)) end
  local stream = s.answers_stream
  local p = queries.params(s.seed_given and s.seed or cfg.seed, stream, s.qualification)
  for q = 1, 22 do
    local sqls = queries.render(q, s.t, p[q], cfg.scale, d, stream)
    local rows = {}
    for _, sql in ipairs(sqls) do
      local rs = con:query(sql)
      if rs ~= nil then
        local r = rs:fetch_row()
        while r do
          local out = {}
          for i = 1, rs.nfields do out[i] = normalise(r[i]) end
          rows[#rows + 1] = table.concat(out, "\t")
          r = rs:fetch_row()
        end
      end
    end
    print(fmt("Q%d: %d row%s (%s)", q, #rows, #rows == 1 and "" or "s", queries.describe(p[q])))
    for _, r in ipairs(rows) do print("  " .. r) end
  end
  con:disconnect()
end

return M
