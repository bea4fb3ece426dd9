-- An option declared with '-' in its name: sysbench names it with '_' in its messages.
sysbench.cmdline.options = { ["value-size"] = { "bytes per value", 100, sysbench.cmdline.ARG_INT } }
function show() print(sysbench.opt.value_size) end
sysbench.cmdline.commands = { show = { show } }
function event() end
