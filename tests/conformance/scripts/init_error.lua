function init() error("init fails") end
function event() end
