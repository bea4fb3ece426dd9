-- Lines printed from several threads at once go out in one write each: sysbench's print()
-- writes every argument on its own, so two threads' lines can mix (deliberate:print-lines).
local function say(...) local t = {...} for i = 1, select('#', ...) do t[i] = tostring(t[i]) end io.write(table.concat(t, "\t", 1, select('#', ...)) .. "\n") end
function hello() print("hello from", sysbench.tid) end
function par() say("parallel", sysbench.tid) end
sysbench.cmdline.commands = { hello = { hello }, par = { par, sysbench.cmdline.PARALLEL_COMMAND } }
function event() end
