-- sysbench.cmdline: option and command declarations. The C side reads
-- sysbench.cmdline.options and .commands; these helpers mirror sysbench's.
return function(C_)
  local cmdline = {
    ARG_NULL = 0, ARG_BOOL = 1, ARG_INT = 2, ARG_SIZE = 3, ARG_DOUBLE = 4, ARG_STRING = 5,
    ARG_LIST = 6, ARG_FILE = 7, ARG_MAX = 8,
    PARALLEL_COMMAND = true,
    argv = C_.argv,
    command = C_.command,
    script_path = C_.script_path,
  }

  function cmdline.command_defined(name)
    return type(cmdline.commands) == "table" and cmdline.commands[name] ~= nil
  end

  function cmdline.command_parallel(name)
    local c = cmdline.command_defined(name) and cmdline.commands[name]
    return type(c) == "table" and c[2] == cmdline.PARALLEL_COMMAND
  end

  function cmdline.call_command(name)
    local c = cmdline.commands[name]
    local f = type(c) == "table" and c[1] or c
    return f()
  end

  -- Options are registered by the engine when the script's main chunk has run.
  function cmdline.read_cmdline_options()
    return true
  end

  local hints = { [1] = "[=on|off]", [2] = "=N", [3] = "=SIZE", [4] = "=N", [5] = "=STRING",
    [6] = "=[LIST,...]", [7] = "=FILENAME" }

  function cmdline.print_test_options()
    local opts = cmdline.options or {}
    local names = {}
    for k in pairs(opts) do names[#names + 1] = k end
    table.sort(names)
    for _, name in ipairs(names) do
      local o = opts[name]
      local def, t = o[2], o[3]
      if not t then
        t = type(def) == "boolean" and 1 or type(def) == "number" and 4
          or type(def) == "table" and 6 or 5
      end
      if type(def) == "table" then def = table.concat(def, ",") end
      if type(def) == "boolean" then def = def and "on" or "off" end
      local left = "  --" .. name .. hints[t]
      local line = string.format("%-33s %s", left, o[1] or "")
      if def ~= nil and def ~= "" then line = line .. " [" .. tostring(def) .. "]" end
      print(line)
    end
  end

  return cmdline
end
