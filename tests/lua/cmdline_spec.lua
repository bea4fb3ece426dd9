-- sysbench.cmdline: command declarations (the options' checks and help: cmdline_decl_spec).
local h = require("helpers")
local cmdline = sysbench.cmdline

describe("sysbench.cmdline", function()
  after_each(function() cmdline.commands, cmdline.options = nil, nil end)

  it("has sysbench's argument type constants", function()
    assert.are.same({ 0, 1, 2, 3, 4, 5, 6, 7, 8 }, { cmdline.ARG_NULL, cmdline.ARG_BOOL, cmdline.ARG_INT,
      cmdline.ARG_SIZE, cmdline.ARG_DOUBLE, cmdline.ARG_STRING, cmdline.ARG_LIST, cmdline.ARG_FILE,
      cmdline.ARG_MAX })
  end)

  it("finds, classifies and calls commands, plain functions or {f, PARALLEL_COMMAND}", function()
    local called = {}
    cmdline.commands = {
      load = { function() called[#called + 1] = "load" return 7 end, cmdline.PARALLEL_COMMAND },
      show = function() called[#called + 1] = "show" end,
      once = { function() called[#called + 1] = "once" end },
    }
    assert.is_true(cmdline.command_defined("load"))
    assert.is_false(cmdline.command_defined("nope"))
    assert.is_true(cmdline.command_parallel("load"))
    assert.is_false(cmdline.command_parallel("show"))
    assert.is_false(cmdline.command_parallel("once"))
    assert.is_false(cmdline.command_parallel("nope"))
    assert.are.equal(7, cmdline.call_command("load"))
    cmdline.call_command("show")
    cmdline.call_command("once")
    assert.are.same({ "load", "show", "once" }, called)
    cmdline.commands = nil
    assert.is_false(cmdline.command_defined("load"))
  end)

  it("commands that are not a table are none; a command's error goes through", function()
    cmdline.commands = "prepare"
    assert.is_false(cmdline.command_defined("prepare"))
    assert.is_false(cmdline.command_parallel("prepare"))
    cmdline.commands = { boom = function() error("cannot prepare", 0) end }
    assert.has_error(function() cmdline.call_command("boom") end, "cannot prepare")
    assert.is_true(cmdline.read_cmdline_options())
  end)

  it("a script sees its command, path and arguments", function()
    local path = h.write("cmdline_args.lua", [[
      function show() print("CMD", sysbench.cmdline.command, sysbench.cmdline.script_path) end
      sysbench.cmdline.commands = { show = { show } }
    ]])
    local out, err, rc = h.run(path .. " --verbosity=1 show")
    assert.are.equal(0, rc, err)
    assert.are.equal("CMD\tshow\t" .. path, out:match("CMD[^\n]*"))
  end)
end)
