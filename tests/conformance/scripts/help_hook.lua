-- A help() hook that prints the declared options through sysbench.cmdline.print_test_options():
-- the column is as wide as the longest name + type hint, as sysbench lays it out.
sysbench.cmdline.options = {
  a = {"short", 1},
  b = {"bool", true},
  sz = {"a size", "1K", sysbench.cmdline.ARG_SIZE},
  e = {"empty default", ""},
  n = {"no default"},
}
function event() end
function help()
  print("my help:")
  sysbench.cmdline.print_test_options()
  print("end")
end
