-- The 0.5-style globals sysbench 1.0.20 still provides (luabench.compat).

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
end)
