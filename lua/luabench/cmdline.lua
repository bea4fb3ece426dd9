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

  -- false for a command the script does not declare, as sysbench's
  function cmdline.call_command(name)
    if not cmdline.command_defined(name) then return false end
    local c = cmdline.commands[name]
    local f = type(c) == "table" and c[1] or c
    if type(f) ~= "function" then
      require("luabench.api_check").bad("sysbench.cmdline.call_command(name)",
        "the command must be declared as { function [, PARALLEL_COMMAND] } in sysbench.cmdline.commands", f)
    end
    return f()
  end

  -- The declarations' checks and the help's option list serve the control state only
  -- (luabench.cmdline_decl): a worker's state does not carry them.
  function cmdline.read_cmdline_options()
    return require("luabench.cmdline_decl").read_options(cmdline, C_.additions)
  end
  function cmdline.print_test_options()
    return require("luabench.cmdline_decl").print_options(cmdline, C_.additions)
  end

  return cmdline
end
