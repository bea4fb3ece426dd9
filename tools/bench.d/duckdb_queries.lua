-- Prints the 22 queries of dbt3's power test (stream 0, or the qualification parameters with
-- arg QUALIFICATION=1) as luabench sends them to DuckDB, for DuckDB's own CLI: `.timer on`, then
-- each statement, preceded by a comment naming its query. Used by tools/bench.d/duckdb.sh:
--   luabench tools/bench.d/duckdb_queries.lua --sf=1 sql > q.sql
sysbench.cmdline.options = {
  sf = { "scale factor of the loaded data", 1.0 },
  seed = { "the seed dbt3 draws the parameters from (dbt3's default)", 19920101, sysbench.cmdline.ARG_INT },
  qualification = { "the specification's validation parameters", false },
}

function event() end

local function sql()
  local queries = require("dbt3.queries")
  local d = require("luabench.dialect").of("duckdb")
  local t = {}
  for _, n in ipairs({ "region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem" }) do t[n] = n end
  t.config = "dbt3_config"
  local opt = sysbench.opt
  local params = queries.params(opt.seed, 0, opt.qualification)
  print(".timer on")
  for _, q in ipairs(queries.order(0)) do
    for i, sql in ipairs(queries.render(q, t, params[q], tonumber(opt.sf), d, 0)) do
      print(string.format("-- Q%d.%d", q, i))
      print((sql:gsub(";%s*$", "")) .. ";")
    end
  end
end

sysbench.cmdline.commands = { sql = { sql } }
