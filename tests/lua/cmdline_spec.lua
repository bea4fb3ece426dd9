-- sysbench.cmdline: command declarations and the script options' help lines.
local h = require("helpers")
local cmdline = sysbench.cmdline

-- Lines print() writes while f runs.
local function printed(f)
  local lines, saved = {}, _G.print
  _G.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, "\t")
  end
  local ok, err = pcall(f)
  _G.print = saved
  assert(ok, err)
  return lines
end

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

  it("prints the options sorted, with their type hint and default", function()
    cmdline.options = {
      rows = { "Number of rows", 10000 },
      flag = { "A flag", true },
      off = { "Off flag", false },
      list = { "A list", { 1, 2, 3 } },
      name = { "A name", "abc" },
      empty = { "Empty default", "" },
      sized = { "A size", "1M", cmdline.ARG_SIZE },
    }
    -- sysbench's layout (sb_print_options): hints padded to the longest name + hint, an empty
    -- default shown as [], an empty line after the list
    assert.are.same({
      "  --empty=STRING    Empty default []",
      "  --flag[=on|off]   A flag [on]",
      "  --list=[LIST,...] A list [1,2,3]",
      "  --name=STRING     A name [abc]",
      "  --off[=on|off]    Off flag [off]",
      "  --rows=N          Number of rows [10000]",
      "  --sized=SIZE      A size [1M]",
      "",
    }, printed(cmdline.print_test_options))
    cmdline.options = nil
    assert.are.same({}, printed(cmdline.print_test_options))
  end)

  it("prints the hints of ARG_INT, ARG_DOUBLE and ARG_FILE, and an option with no description", function()
    cmdline.options = {
      count = { "A count", 5, cmdline.ARG_INT },
      ratio = { "A ratio", 0.5, cmdline.ARG_DOUBLE },
      path = { "A file", "/tmp/x", cmdline.ARG_FILE },
      bare = {},
    }
    assert.are.same({
      "  --bare=STRING   ",
      "  --count=N       A count [5]",
      "  --path=FILENAME A file [/tmp/x]",
      "  --ratio=N       A ratio [0.5]",
      "",
    }, printed(cmdline.print_test_options))
  end)

  it("commands that are not a table are none; a command's error goes through", function()
    cmdline.commands = "prepare"
    assert.is_false(cmdline.command_defined("prepare"))
    assert.is_false(cmdline.command_parallel("prepare"))
    cmdline.commands = { boom = function() error("cannot prepare", 0) end }
    assert.has_error(function() cmdline.call_command("boom") end, "cannot prepare")
    assert.is_true(cmdline.read_cmdline_options())
  end)

  it("read_cmdline_options refuses malformed declarations with sysbench's messages", function()
    local function fails(opts, msg)
      cmdline.options = opts
      local ok, err = pcall(cmdline.read_cmdline_options)
      assert.is_false(ok)
      assert.are.equal(msg, err)
    end
    fails("nope", "wrong type for sysbench.cmdline.options: string")
    fails({ x = "desc" }, "wrong table structure in sysbench.cmdline.options")
    fails({ { "desc", 1 } }, "wrong table structure in sysbench.cmdline.options")
    fails({ x = {} }, "nil description for option x")
    fails({ x = { "d", { "a" }, cmdline.ARG_INT } }, "wrong type for list option x")
    fails({ x = { "d", print } }, "cannot determine type for option x")
    cmdline.options = { x = { "d", { "a" }, cmdline.ARG_LIST }, y = { "d" } }
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
