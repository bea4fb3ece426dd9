-- A malformed sysbench.cmdline.options (an option without a description).
sysbench.cmdline.options = { x = {} }
function event() end
