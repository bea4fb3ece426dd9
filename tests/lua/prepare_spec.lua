-- luabench.prepare: progress, phases and failure across the threads of a parallel prepare,
-- and table_exists against the real servers.
local h = require("helpers")

describe("luabench.prepare", function()
  describe("in this state (one thread)", function()
    local prep = require("luabench.prepare")
    local saved_opt
    before_each(function()
      saved_opt = rawget(sysbench, "opt")
      sysbench.opt = { threads = 1 }
    end)
    after_each(function() sysbench.opt = saved_opt end)

    -- Lines print()ed while f runs.
    local function printed(f)
      local lines, real = {}, _G.print
      _G.print = function(...) lines[#lines + 1] = table.concat({ ... }, "\t") end
      local ok, err = pcall(f)
      _G.print = real
      assert(ok, err)
      return lines
    end

    it("counts rows, prints at most every 2 s unless forced, and a final exact line", function()
      local lines = printed(function()
        local ld = prep.new("prepare_spec.rows", 1000)
        ld:add(5)
        ld:add(15)
        assert.are.equal(20, ld:rows())
        ld:tick(false) -- too soon
        ld:tick(true)
        ld:finish()   -- the estimated total becomes the real count
        ld:finish()   -- already said
      end)
      assert.are.equal(2, #lines, table.concat(lines, "\n"))
      assert.is_truthy(lines[1]:match("^Progress: 20/1000 rows %(2%%%), %d+ rows/s, ETA %d+s$"), lines[1])
      assert.is_truthy(lines[2]:match("^Progress: 20/20 rows %(100%%%), %d+ rows/s, ETA 0s$"), lines[2])
    end)

    it("an unknown total shows the rows so far; a workload may bring its own line", function()
      local lines = printed(function()
        local ld = prep.new("prepare_spec.unknown")
        ld:add(7)
        ld:tick(true)
        local own = prep.new("prepare_spec.own", 3)
        own.line = function(self, n, rate) return string.format("loaded %d of %d warehouses", n, self.total) end
        own:add(2)
        own:tick(true)
        own:tick(false, true) -- not moved: nothing
        own:finish()
      end)
      assert.is_truthy(lines[1]:match("^Progress: 7/7 rows %(100%%%)"), lines[1])
      assert.are.same({ "loaded 2 of 3 warehouses", "loaded 2 of 2 warehouses" }, { lines[2], lines[3] })
      assert.are.equal(3, #lines)
    end)

    it("the same name is the same state; a failure stops every barrier and phase", function()
      local a = prep.new("prepare_spec.fail", 10)
      a:add(4)
      local b = prep.new("prepare_spec.fail", 10)
      assert.are.equal(4, b:rows())
      assert.is_false(b:failed())
      assert.is_true(a:barrier(1))
      a:phase(2)
      a:fail()
      assert.is_true(b:failed())
      assert.is_false(b:barrier(3))
      local ok, err = pcall(b.phase, b, 4)
      assert.is_false(ok)
      assert.are.equal("another loader thread failed", err)
    end)

    it("table_exists refuses a driver without a SQL dialect", function()
      local con = sysbench.sql.driver("null"):connect()
      local ok, err = pcall(prep.table_exists, con, "t")
      assert.is_false(ok)
      assert.is_truthy(err:find("no SQL dialect for driver 'null'", 1, true), err)
      con:disconnect()
    end)
  end)

  it("threads meet at phases, thread 0 reports the rows of all", function()
    local path = h.write("prep_phases.lua", [[
      local prep = require("luabench.prepare")
      local function load()
        local ld = prep.new("spec.load", 4000)
        for _ = 1, 10 do ld:add(100) end
        ld:phase(1)
        if sysbench.tid == 0 then print("AFTER1", ld:rows()) end
        ld:phase(2)
        ld:finish()
      end
      sysbench.cmdline.commands = { load = { load, sysbench.cmdline.PARALLEL_COMMAND } }
    ]])
    local out, err, rc = h.run(path .. " --threads=4 --verbosity=1 load")
    assert.are.equal(0, rc, err)
    assert.are.equal("AFTER1\t4000", out:match("AFTER1[^\n]*"))
    local last
    for l in out:gmatch("Progress:[^\n]*") do last = l end
    assert.is_truthy(last and last:match("^Progress: 4000/4000 rows %(100%%%), %d+ rows/s, ETA 0s$"), out)
  end)

  it("a failing thread stops the others at their next phase", function()
    local path = h.write("prep_fail.lua", [[
      local prep = require("luabench.prepare")
      local function load()
        local ld = prep.new("spec.fail", 0)
        if sysbench.tid == 2 then
          ld:fail()
          error("thread 2 cannot load", 0)
        end
        local ok, err = pcall(ld.phase, ld, 1)
        print("PHASE", sysbench.tid, ok, err)
      end
      sysbench.cmdline.commands = { load = { load, sysbench.cmdline.PARALLEL_COMMAND } }
    ]])
    local out, err, rc = h.run(path .. " --threads=3 --verbosity=1 load")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("thread 2 cannot load", 1, true), err)
    for tid = 0, 1 do
      assert.are.equal("PHASE\t" .. tid .. "\tfalse\tanother loader thread failed", out:match("PHASE\t" .. tid .. "[^\n]*"), out)
    end
  end)

  it("table_exists asks the server, and needs a dialect", function()
    for _, name in ipairs(h.drivers) do
      local opts = h.db(name)
      if opts then
        local out, err, rc = h.run("- --verbosity=1 " .. opts, { stdin = [[
          local prep = require("luabench.prepare")
          local con = sysbench.sql.driver():connect()
          con:query("DROP TABLE IF EXISTS lbt_prep_spec")
          local before = prep.table_exists(con, "lbt_prep_spec")
          con:query("CREATE TABLE lbt_prep_spec (id INT)")
          print("EXISTS", before, prep.table_exists(con, "lbt_prep_spec"))
          con:query("DROP TABLE lbt_prep_spec")
        ]] })
        assert.are.equal(0, rc, err)
        assert.are.equal("EXISTS\tfalse\ttrue", out:match("EXISTS[^\n]*"), name)
      end
    end
    local out, err, rc = h.run("- --verbosity=1 --db-driver=null", { stdin = [[
      local con = sysbench.sql.driver():connect()
      print("ERR", select(2, pcall(require("luabench.prepare").table_exists, con, "t")))
    ]] })
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("no SQL dialect for driver 'null'", 1, true), out)
  end)
end)
