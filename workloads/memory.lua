-- memory: sysbench's memory bandwidth test. Each event makes one pass over one block (word
-- loads or stores, sequential or random); every thread stops after its share of
-- --memory-total-size. --events does not apply (as in sysbench); --time does.
local ffi = require("ffi")
local C = ffi.C

sysbench.cmdline.options = {
  ["memory-block-size"] = { "size of memory block for test", "1K", sysbench.cmdline.ARG_SIZE },
  ["memory-total-size"] = { "total size of data to transfer", "100G", sysbench.cmdline.ARG_SIZE },
  ["memory-scope"] = { "memory access scope {global,local}", "global" },
  ["memory-hugetlb"] = { "allocate memory from HugeTLB pool", false },
  ["memory-oper"] = { "type of memory operations {read, write, none}", "write" },
  ["memory-access-mode"] = { "memory access mode {seq,rnd}", "seq" },
}

local opers = { none = 0, read = 1, write = 2 }
local o = {}

-- sysbench's messages ("Invalid value for memory-oper: x").
local function invalid(name, value)
  error(string.format("Invalid value for %s: %s", name, tostring(value)), 0)
end

local function settings()
  local opt = sysbench.opt
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

function thread_init()
  settings()
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

function event()
  if done >= quota then return true end
  done = done + 1
  C.lb_kernel_memory(buf, o.block, o.oper, o.rnd, rng)
end

local function mib(events) return events * sysbench.opt.memory_block_size / 1048576 end

function sysbench.hooks.run_header()
  local opt = sysbench.opt
  return string.format("Running memory speed test with the following options:\n" ..
    "  block size: %dKiB\n  total size: %dMiB\n  operation: %s\n  scope: %s\n\n",
    opt.memory_block_size / 1024, opt.memory_total_size / 1048576, opt.memory_oper, opt.memory_scope)
end

function sysbench.hooks.report_intermediate(stat)
  print(string.format("[ %.0fs ] %4.2f MiB/sec", stat.time_total, mib(stat.events) / stat.time_interval))
end

function sysbench.hooks.report_text(stat)
  local s = stat.time_interval
  local ops = string.format("Total operations: %d (%8.2f per second)\n\n", stat.events, stat.events / s)
  -- sysbench leaves the transfer out when nothing is transferred
  if sysbench.opt.memory_oper == "none" then return ops .. "\n" end
  return ops .. string.format("%4.2f MiB transferred (%4.2f MiB/sec)\n\n\n", mib(stat.events), mib(stat.events) / s)
end

function sysbench.hooks.report_json(stat)
  local s = stat.time_interval
  return { operations = stat.events, operations_per_second = stat.events / s,
    mib_transferred = mib(stat.events), mib_per_second = mib(stat.events) / s }
end
