-- 0.5-style globals that sysbench 1.0.20 still provides for old scripts.
return function(C_)
  local sb = sysbench
  thread_id = sb.tid
  test = C_.script_path

  sb_rand = sb.rand.default
  sb_rand_uniform = sb.rand.uniform
  sb_rand_gaussian = sb.rand.gaussian
  sb_rand_special = sb.rand.special
  sb_rand_str = sb.rand.string

  function sb_rnd()
    return sb.rand.uniform(0, 4294967295)
  end

  -- Draws from the process-wide unique sequence (0 .. 2^32 - 1) until a value falls in [a, b]
  -- (a range that holds none of its values, or NaN, would draw forever: refused).
  function sb_rand_uniq(a, b)
    if not (type(a) == "number" and type(b) == "number" and a <= b) then
      local api = require("luabench.api_check")
      api.bad("sb_rand_uniq(a, b)", "a and b must be numbers with a <= b", type(a) == "number" and b or a)
    end
    if b < 0 or a > 4294967295 or math.floor(b) < a then
      require("luabench.api_check").bad("sb_rand_uniq(a, b)",
        "[a, b] must hold an integer between 0 and 4294967295", a)
    end
    local v
    repeat v = sb.rand.unique() until v >= a and v <= b
    return v
  end

  -- The database globals load their implementation (and the SQL module) on first use. As in
  -- sysbench 1.0.20 they are also sysbench.db.connect, sysbench.db.query, ...
  sb.db = { DB_ERROR_NONE = 0, DB_ERROR_RESTART_TRANSACTION = 1, DB_ERROR_FAILED = 2 }
  for _, name in ipairs({ "db_connect", "db_disconnect", "db_query", "db_bulk_insert_init",
    "db_bulk_insert_next", "db_bulk_insert_done", "db_prepare", "db_bind_param", "db_bind_result",
    "db_execute", "db_store_results", "db_free_results", "db_close" }) do
    _G[name] = function(...) return require("luabench.sql_legacy")[name](...) end
    sb.db[name:sub(4)] = _G[name]
  end

  DB_ERROR_NONE = 0
  DB_ERROR_RESTART_TRANSACTION = 1
  DB_ERROR_FAILED = 2
  mysql_table_engine = "innodb"
  myisam_max_rows = 1000000
end
