-- Every event counts an error and stops its thread: a run that completes no event. sysbench
-- prints the report and exits 0 (so does luabench as sysbench; as luabench the run fails).
ffi.cdef[[void sb_counter_inc(int thread_id, int type);]]
function event()
  ffi.C.sb_counter_inc(sysbench.tid, 4) -- SB_CNT_ERROR
  return true
end
