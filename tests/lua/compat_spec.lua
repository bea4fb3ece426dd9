-- The 0.5-style globals sysbench 1.0.20 still provides (luabench.compat).
local h = require("helpers")

describe("0.5-style globals", function()
  it("random helpers stay in their ranges", function()
    for _ = 1, 2000 do
      local u = sb_rand_uniform(3, 5)
      assert.is_true(u >= 3 and u <= 5 and u % 1 == 0)
      local r = sb_rnd()
      assert.is_true(r >= 0 and r <= 4294967295)
      local q = sb_rand_uniq(1, 2 ^ 31)
      assert.is_true(q >= 1 and q <= 2 ^ 31)
      local g = sb_rand_gaussian(1, 10)
      assert.is_true(g >= 1 and g <= 10)
    end
    assert.is_truthy(sb_rand_str("###-@@@"):match("^%d%d%d%-%a%a%a$"))
  end)

  it("constants and aliases are sysbench's", function()
    assert.are.same({ 0, 1, 2 }, { DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED })
    assert.are.equal("innodb", mysql_table_engine)
    assert.are.equal(1000000, myisam_max_rows)
    assert.are.equal(sysbench.tid, thread_id)
    assert.are.equal(db_connect, sysbench.db.connect)
    assert.are.equal(db_query, sysbench.db.query)
    assert.are.equal(sysbench.rand.default, sb_rand)
  end)
  it("sb_rand_uniq never repeats a value", function()
    local seen = {}
    for _ = 1, 5000 do
      local v = sb_rand_uniq(1000, 2 ^ 31)
      assert.is_nil(seen[v], "repeated " .. v)
      seen[v] = true
    end
  end)
  it("sb_rand_uniq refuses a range that holds no value of the sequence, in one line", function()
    -- the fuzzer's (-1e308, 0) held only 0: four billion draws to find it; (-5, -1) none
    for _, r in ipairs({ { -5, -1 }, { 2 ^ 32, 2 ^ 33 }, { 0.25, 0.75 } }) do
      local ok, err = pcall(sb_rand_uniq, r[1], r[2])
      assert.is_false(ok)
      assert.is_truthy(err:find("sb_rand_uniq(a, b): [a, b] must hold an integer between 0 and 4294967295", 1, true), err)
      assert.is_nil(err:find("\n"), err)
    end
  end)

  it("every db_* global is also sysbench.db.*, and the SQL layer loads on the first call", function()
    for _, name in ipairs({ "connect", "disconnect", "query", "bulk_insert_init", "bulk_insert_next",
      "bulk_insert_done", "prepare", "bind_param", "bind_result", "execute", "store_results",
      "free_results", "close" }) do
      assert.are.equal("function", type(_G["db_" .. name]), "db_" .. name)
      assert.are.equal(_G["db_" .. name], sysbench.db[name], name)
    end
    -- (in a process of its own: another spec may have loaded the SQL layer in this one)
    local out, err, rc = h.run("- --verbosity=1 --db-driver=null", { stdin = [[
      print("BEFORE", package.loaded["luabench.sql_legacy"] == nil, rawget(sysbench, "sql") == nil)
      db_query("SELECT 1")
      print("AFTER", package.loaded["luabench.sql_legacy"] ~= nil, rawget(sysbench, "sql") ~= nil, db_driver)
      print("TEST", test)
    ]] })
    assert.are.equal(0, rc, err)
    assert.are.equal("BEFORE\ttrue\ttrue", out:match("BEFORE[^\n]*"))
    assert.are.equal("AFTER\ttrue\ttrue\tnull", out:match("AFTER[^\n]*"))
    -- the 0.5 global `test` is the script's path (busted has its own `test` in this state)
    assert.are.equal("TEST\t-", out:match("TEST[^\n]*"))
  end)
end)
