-- luabench.cmdline_decl: sysbench.cmdline's checks of the option declarations and the options'
-- help lines, reached through sysbench.cmdline as scripts and the engine call them.
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

describe("luabench.cmdline_decl", function()
  after_each(function() cmdline.options = nil end)

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
end)
