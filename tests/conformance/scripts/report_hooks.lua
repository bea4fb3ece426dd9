function event() end
sysbench.hooks.report_intermediate = sysbench.report_csv
function sysbench.hooks.report_cumulative(stat) print("events", stat.events) end
