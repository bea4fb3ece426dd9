-- A malformed sysbench.cmdline.options (not a table): a FATAL naming read_cmdline_options.
sysbench.cmdline.options = "not a table"
function event() end
