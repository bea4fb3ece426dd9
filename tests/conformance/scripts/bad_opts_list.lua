-- A malformed sysbench.cmdline.options (a list default with a type that is not a list).
sysbench.cmdline.options = { x = { "d", { "a" }, sysbench.cmdline.ARG_INT } }
function event() end
