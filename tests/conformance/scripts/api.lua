-- The sysbench table and the random functions: types and ranges (values differ by generator).
print("version", sysbench.version, sysbench.version_string)
print("error", sysbench.error.NONE, sysbench.error.RESTART_EVENT)
function event() end
function thread_init()
  local r = sysbench.rand
  local ok = true
  for _ = 1, 1000 do
    local u, g, s, p = r.uniform(5, 9), r.gaussian(5, 9), r.special(5, 9), r.pareto(5, 9)
    ok = ok and u >= 5 and u <= 9 and g >= 5 and g <= 9 and s >= 5 and s <= 9 and p >= 5 and p <= 9
  end
  print("ranges", ok)
  print("string", #r.string("##-@@"), r.string("##-@@"):match("^%d%d%-%a%a$") ~= nil)
  print("types", type(r.uniform_uint64()), type(r.uniform_double()), type(r.default(1, 10)))
  print("legacy", num_threads, max_requests, max_time, type(sb_rand), type(db_connect))
  print("opt", sysbench.opt.threads, sysbench.opt.events, sysbench.opt.time, sysbench.opt.rand_type)
end
