-- A list option declared with its type: sysbench refuses it (wrong type for list option),
-- luabench accepts it ([deliberate:list-type] in doc/sysbench.md).
sysbench.cmdline.options = { items = { "some items", { "a", "b" }, sysbench.cmdline.ARG_LIST } }
function show() print(table.concat(sysbench.opt.items, "+")) end
sysbench.cmdline.commands = { show = { show } }
function event() end
