function thread_init() error("thread_init fails") end
function event() end
