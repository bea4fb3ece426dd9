function hello() print("hello from", sysbench.tid) end
function par() print("parallel", sysbench.tid) end
sysbench.cmdline.commands = { hello = { hello }, par = { par, sysbench.cmdline.PARALLEL_COMMAND } }
function event() end
