-- memory: sysbench's memory bandwidth test. Each event makes one pass over one block (word
-- loads or stores, sequential or random); every thread stops after its share of
-- --memory-total-size. --events does not apply (as in sysbench); --time does.
--
-- luabench: --memory-method=memcpy|dumb|mcblock is mbw's test instead: each thread copies its own
-- array of --memory-array-size into a second one, --memory-runs times, one copy per event, and
-- the report gives mbw's figures (MiB per copy over the average copy time) and the aggregate.
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_kernels")
local C = ffi.C

sysbench.cmdline.options = {
  ["memory-block-size"] = { "size of memory block for test", "1K", sysbench.cmdline.ARG_SIZE },
  ["memory-total-size"] = { "total size of data to transfer", "100G", sysbench.cmdline.ARG_SIZE },
  ["memory-scope"] = { "memory access scope {global,local}", "global" },
  ["memory-hugetlb"] = { "allocate memory from HugeTLB pool", false },
  ["memory-oper"] = { "type of memory operations {read, write, none}", "write" },
  ["memory-access-mode"] = { "memory access mode {seq,rnd}", "seq" },
  ["memory-method"] = { "mbw's array copy instead of sysbench's test: memcpy (one memcpy of the array), dumb (a loop of 8-byte element copies), mcblock (memcpy in --memory-copy-block-size pieces); empty = sysbench's test", "", luabench = true },
  ["memory-array-size"] = { "--memory-method: size of the array each thread copies (it allocates two); a multiple of 8 bytes", "64M", sysbench.cmdline.ARG_SIZE, luabench = true },
  ["memory-runs"] = { "--memory-method: copies per thread (mbw -n); 0 = until --time", 10, sysbench.cmdline.ARG_INT, luabench = true },
  ["memory-copy-block-size"] = { "--memory-method=mcblock: bytes per memcpy (mbw -b)", "256K", sysbench.cmdline.ARG_SIZE, luabench = true },
}

-- mbw's method numbers (C's enum lb_mbw_method) and names in its report.
local methods = { memcpy = { 0, "MEMCPY" }, dumb = { 1, "DUMB" }, mcblock = { 2, "MCBLOCK" } }

local opers = { none = 0, read = 1, write = 2 }
local o = {}

-- sysbench's messages ("Invalid value for memory-oper: x").
local function invalid(name, value)
  error(string.format("Invalid value for %s: %s", name, tostring(value)), 0)
end

local function mbw_settings(opt)
  o.method = methods[opt.memory_method]
  if not o.method then invalid("memory-method", opt.memory_method .. " (expected memcpy, dumb or mcblock)") end
  o.array = opt.memory_array_size
  if o.array < 8 or o.array % 8 ~= 0 then
    invalid("memory-array-size", tostring(opt.memory_array_size) .. " bytes (expected a positive multiple of 8)")
  end
  o.runs = opt.memory_runs
  if o.runs < 0 then invalid("memory-runs", opt.memory_runs) end
  o.copy_block = opt.memory_copy_block_size
  if o.copy_block < 1 then invalid("memory-copy-block-size", opt.memory_copy_block_size) end
end

local function settings()
  local opt = sysbench.opt
  if opt.memory_method ~= "" then return mbw_settings(opt) end
  o.block = opt.memory_block_size
  o.total = opt.memory_total_size
  o.oper = opers[opt.memory_oper]
  o.rnd = opt.memory_access_mode == "rnd" and 1 or 0
  if not o.oper then invalid("memory-oper", opt.memory_oper) end
  if opt.memory_access_mode ~= "seq" and opt.memory_access_mode ~= "rnd" then
    invalid("memory-access-mode", opt.memory_access_mode)
  end
  if opt.memory_scope ~= "global" and opt.memory_scope ~= "local" then
    invalid("memory-scope", opt.memory_scope)
  end
  -- Word-sized accesses over a power-of-two block (sysbench's "Invalid value" for 0, 3, -1),
  -- named as given ("(null)" for an empty value, as sysbench prints it).
  if o.block < 8 or bit.band(o.block, o.block - 1) ~= 0 then
    invalid("memory-block-size", sysbench._option_text("memory-block-size") or "(null)")
  end
  if o.total < 0 then invalid("memory-total-size", o.total) end
  sysbench._strict_options()
end

function init()
  settings()
end

local buf, quota, done = nil, 0, 0
local src, dst -- --memory-method: the arrays copied from and to

local function mbw_thread_init()
  -- both written before the first copy, as mbw does
  src = C.lb_kernel_mbw_array(o.array)
  dst = C.lb_kernel_mbw_array(o.array)
  if src == nil or dst == nil then
    error(string.format("cannot allocate two arrays of %d bytes (--memory-array-size)", o.array), 0)
  end
  quota = o.runs > 0 and o.runs or math.huge
end

function thread_init()
  settings()
  if o.method then return mbw_thread_init() end
  local hugetlb = sysbench.opt.memory_hugetlb and 1 or 0
  if sysbench.opt.memory_scope == "global" then
    buf = sysbench.shared("memory.global_block", "char", o.block)
  else
    buf = C.lb_kernel_memory_alloc(o.block, hugetlb)
    if buf == nil then error("cannot allocate a memory block of " .. o.block .. " bytes", 0) end
  end
  -- 0 means no size limit.
  quota = o.total > 0 and math.floor(o.total / o.block / sysbench.opt.threads) or math.huge
end

local rng = sysbench.rand.rng

-- Tells the engine this workload ignores --events: it stops after --memory-total-size.
function sysbench.hooks._ignore_events() end

local counters = luabench.counters

local function mbw_event()
  if done >= quota then return true end
  done = done + 1
  -- The bytes counted are the ones the copy loop says it copied.
  local n = C.lb_kernel_mbw_copy(dst, src, o.array, o.method[1], o.copy_block)
  luabench.counter_add(counters.BYTES_READ, n)
  luabench.counter_add(counters.BYTES_WRITTEN, n)
end

function event()
  if o.method then return mbw_event() end
  if done >= quota then return true end
  done = done + 1
  C.lb_kernel_memory(buf, o.block, o.oper, o.rnd, rng)
end

function thread_done()
  if src ~= nil then C.lb_kernel_memory_free(src) end
  if dst ~= nil then C.lb_kernel_memory_free(dst) end
  src, dst = nil, nil
end

-- Read from the options, not from `o`: report_intermediate runs in the reporter's own state,
-- where init() did not run (its lines once gave events x --memory-block-size: 0.04 MiB/sec for
-- arrays copied at 11 GiB/s).
local function mib(events)
  local opt = sysbench.opt
  if opt.memory_method ~= "" then return events * opt.memory_array_size / 1048576 end
  return events * opt.memory_block_size / 1048576
end

-- mbw's figures for the copies of a window: the average time of one copy, and the array's MiB
-- over it (its 'Copy' column); latency_sum is the time the copies took, summed over threads.
local function mbw_figures(stat)
  local copies = stat.events
  local elapsed = copies > 0 and (stat.latency_sum or 0) / copies or 0
  return copies, elapsed, elapsed > 0 and o.array / 1048576 / elapsed or 0
end

local function mbw_report_text(stat)
  local copies, elapsed, copy = mbw_figures(stat)
  local total = mib(copies)
  return string.format("Copies: %d of %.2f MiB (%.0f bytes copied)\n", copies, o.array / 1048576,
      stat.bytes_written) ..
    string.format("AVG\tMethod: %s\tElapsed: %.5f\tMiB: %.5f\tCopy: %.3f MiB/s\n", o.method[2], elapsed,
      o.array / 1048576, copy) ..
    string.format("Aggregate: %.2f MiB copied in %.4f s: %.2f MiB/sec over %d threads\n\n", total,
      stat.time_interval, total / stat.time_interval, sysbench.opt.threads)
end

function sysbench.hooks.run_header()
  local opt = sysbench.opt
  if o.method then
    return string.format("Running memory copy test (mbw's %s method) with the following options:\n" ..
      "  array size: %.2fMiB per thread (copied into a second array)\n  copies per thread: %s\n%s\n",
      o.method[2], o.array / 1048576, o.runs > 0 and tostring(o.runs) or "until --time",
      opt.memory_method == "mcblock" and string.format("  block size: %d bytes\n", o.copy_block) or "")
  end
  return string.format("Running memory speed test with the following options:\n" ..
    "  block size: %dKiB\n  total size: %dMiB\n  operation: %s\n  scope: %s\n\n",
    opt.memory_block_size / 1024, opt.memory_total_size / 1048576, opt.memory_oper, opt.memory_scope)
end

function sysbench.hooks.report_intermediate(stat)
  print(string.format("[ %.0fs ] %4.2f MiB/sec", stat.time_total, mib(stat.events) / stat.time_interval))
end

function sysbench.hooks.report_text(stat)
  if o.method then return mbw_report_text(stat) end
  local s = stat.time_interval
  local ops = string.format("Total operations: %d (%8.2f per second)\n\n", stat.events, stat.events / s)
  -- sysbench leaves the transfer out when nothing is transferred
  if sysbench.opt.memory_oper == "none" then return ops .. "\n" end
  return ops .. string.format("%4.2f MiB transferred (%4.2f MiB/sec)\n\n\n", mib(stat.events), mib(stat.events) / s)
end

function sysbench.hooks.report_json(stat)
  local s = stat.time_interval
  if o.method then
    local copies, elapsed, copy = mbw_figures(stat)
    return { method = sysbench.opt.memory_method, array_bytes = o.array, copies = copies,
      bytes_copied = stat.bytes_written, mib_copied = mib(copies), copy_elapsed_avg_s = elapsed,
      copy_mib_per_second = copy, mib_per_second = mib(copies) / s }
  end
  return { operations = stat.events, operations_per_second = stat.events / s,
    mib_transferred = mib(stat.events), mib_per_second = mib(stat.events) / s }
end
