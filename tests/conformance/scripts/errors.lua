function event() error("boom in event") end
