local n = 0
function event()
  n = n + 1
  if n % 2 == 0 then error({ errcode = sysbench.error.RESTART_EVENT }) end
end
function thread_done() print("calls", n) end
