-- A malformed sysbench.cmdline.options (a key that is not a name).
sysbench.cmdline.options = { { "desc", 1 } }
function event() end
