function thread_init() drv = sysbench.sql.driver() con = drv:connect() end
function event() con:query("SELECT 1") end
function thread_done() con:disconnect() end
