-- A malformed sysbench.cmdline.options (an entry that is not a table).
sysbench.cmdline.options = { x = "not a table" }
function event() end
