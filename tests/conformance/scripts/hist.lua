local h = sysbench.histogram.new(100, 1, 1000)
for i = 1, 500 do h:update(i % 300 + 1) end
h:print()
