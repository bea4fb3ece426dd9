-- luabench.prepare: progress, phases and failure across the threads of a parallel prepare,
-- and table_exists against the real servers.
local h = require("helpers")

describe("luabench.prepare", function()
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
