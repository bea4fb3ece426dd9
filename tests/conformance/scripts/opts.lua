-- Declared options of every kind, for help and sysbench.opt.
sysbench.cmdline.options = {
  bool_opt1 = { "A boolean, off", false },
  bool_opt2 = { "A boolean, on", true },
  int_opt = { "An integer", 42 },
  num_opt = { "A number", 1.5 },
  str_opt = { "A string", "abc" },
  empty_opt = { "An empty string", "" },
  list_opt1 = { "A list", { "a", "b", 3 } },
  size_opt = { "A size", "1M", sysbench.cmdline.ARG_SIZE },
}

function show()
  local keys = {}
  for k in pairs(sysbench.opt) do if k:find("_opt") then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = sysbench.opt[k]
    if type(v) == "table" then v = "{" .. table.concat(v, ",") .. "}" end
    print(k, type(v), tostring(v))
  end
end

sysbench.cmdline.commands = { show = { show } }

function event() end
