-- thread_done runs when its own thread's loop ends, not when every thread has finished
ffi.cdef("int usleep(unsigned int);")
local flag = "thread_done_0.flag" -- in the case's own working directory

function init()
  os.remove(flag)
end

function event(tid)
  if tid == 0 then
    return true -- thread 0 stops at once
  end
  for _ = 1, 500 do
    local f = io.open(flag)
    if f then
      f:close()
      print("thread 1: thread 0's thread_done ran while thread 1 was still running")
      return true
    end
    ffi.C.usleep(10000)
  end
  print("thread 1: thread 0's thread_done had not run after 5 seconds")
  return true
end

function thread_done(tid)
  print("thread_done " .. tid)
  if tid == 0 then
    io.open(flag, "w"):close()
  end
end

function done()
  os.remove(flag)
end
