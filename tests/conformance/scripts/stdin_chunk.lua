print("chunk runs", sysbench.cmdline.command, type(sysbench.opt))
