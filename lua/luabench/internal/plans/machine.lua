-- The built-in machine study (`luabench study machine`): what a machine gives a database, each
-- figure beside the peer tool's it reproduces, so that two machines can be put side by side.
-- Run once on each machine, then `luabench compare DIR1 DIR2`. Every value can be changed with
-- --set=NAME=VALUE (doc/compare.md, "The built-in machine study").
local M = {}

M.DESCRIPTION = "what a machine gives a database: cpu, memory copies, 4K disk I/O, network round trips"

-- The values the plan takes, in the order --help lists them: name, default (as text), meaning.
M.VALUES = {
  { "net", "", "HOST[:PORT] of a `luabench net-server` (port 12866); none: tcp_rr is left out" },
  { "time", "10", "seconds of each run (--time)" },
  { "repeats", "3", "measured runs of each workload" },
  { "threads", "the CPUs this process may use", "threads of cpu-all" },
  { "memory_size", "256M", "the array each memory copy copies (mbw's array size)" },
  { "file_dir", "the current directory, as fileio", "where the fileio runs put their file (the disk they measure)" },
  { "file_size", "1G", "the size of that file" },
  { "io_mode", "async", "the engine of the random reads: async (libaio) or io_uring" },
  { "iodepth", "32", "the random reads' queue depth" },
}

local KNOWN = {}
for _, v in ipairs(M.VALUES) do KNOWN[v[1]] = true end

-- The CPUs this process may use (its affinity, as taskset sets it): a count.
local function allowed_cpus()
  local f = io.open("/proc/self/status", "r")
  local text = f and f:read("*a") or ""
  if f then f:close() end
  local list = text:match("Cpus_allowed_list:%s*(%S+)")
  if not list then return 1 end
  local n = 0
  for range in list:gmatch("[^,]+") do
    local a, b = range:match("^(%d+)%-(%d+)$")
    n = n + (a and (tonumber(b) - tonumber(a) + 1) or 1)
  end
  return math.max(n, 1)
end

-- "db1", "db1:7000", "[::1]:7000" -> host, port (nil: the workload's default).
local function host_port(s)
  local host, port = s:match("^%[(.+)%]:(%d+)$")
  if not host then host, port = s:match("^([^:]+):(%d+)$") end
  if not host then host = s:match("^%[(.+)%]$") or s end
  return host, port
end

-- A command's words from pieces: a string is split at spaces, a list is taken as it is (a
-- directory may hold a space).
local function words(...)
  local out = {}
  for _, piece in ipairs({ ... }) do
    if type(piece) == "table" then
      for _, w in ipairs(piece) do out[#out + 1] = w end
    else
      for w in piece:gmatch("%S+") do out[#out + 1] = w end
    end
  end
  return out
end

local function positive(vars, name, default)
  local v = vars[name]
  if v == nil then return default end
  local n = tonumber(v)
  if not n or n < 1 or n ~= math.floor(n) then
    error(string.format("--set=%s=%s: a whole number >= 1", name, tostring(v)), 0)
  end
  return n
end

-- The plan's table. vars: the --set values; ctx: { dir (--dir), label (--label), hostname }.
function M.plan(vars, ctx)
  for k in pairs(vars) do
    if not KNOWN[k] then
      local names = {}
      for _, v in ipairs(M.VALUES) do names[#names + 1] = v[1] end
      error(string.format("no value named '%s' (it takes %s)", k, table.concat(names, ", ")), 0)
    end
  end
  local dir = ctx.dir or ("machine-" .. (ctx.label or ctx.hostname or "this"):gsub("[^%w%-_.]", "_"))
  local time = positive(vars, "time", 10)
  local threads = positive(vars, "threads", allowed_cpus())
  local iodepth = positive(vars, "iodepth", 32)
  local io_mode = vars.io_mode or "async"
  if io_mode ~= "async" and io_mode ~= "io_uring" then
    error(string.format("--set=io_mode=%s: async (libaio) or io_uring", io_mode), 0)
  end
  local mem = { "--memory-array-size=" .. (vars.memory_size or "256M"), "--memory-runs=0" }
  -- one file, made once by the first fileio workload and removed after the last; by default in
  -- the current directory (fileio's), so that the option is the same on every machine
  local file_dir = vars.file_dir or "."
  local file = { "--file-dir=" .. file_dir, "--file-num=1", "--file-total-size=" .. (vars.file_size or "1G") }
  local workloads = {
    -- one core's speed (clock, ISA), then every CPU this process may use
    { name = "cpu", args = "cpu --threads=1" },
    { name = "cpu-all", args = "cpu --threads=" .. threads },
    -- mbw's three methods (mbw -t1, -t0, -t2: doc/workloads/memory.md), one thread as mbw
    { name = "memcpy", args = words("memory --memory-method=memcpy", mem) },
    { name = "dumb", args = words("memory --memory-method=dumb", mem) },
    { name = "mcblock", args = words("memory --memory-method=mcblock", mem) },
    -- fio --rw=readwrite --ioengine=sync --fdatasync=1 --bs=4k (doc/workloads/fileio.md)
    { name = "fdatasync", prepare = true,
      args = words("fileio", file, "--file-test-mode=seqrw --file-rw-ratio=1 --file-io-mode=sync "
        .. "--file-block-size=4K --file-fsync-every-io --file-fsync-mode=fdatasync") },
    -- fio --rw=randread --direct=1 --ioengine=libaio --iodepth=32 --bs=4k (and its random map)
    { name = "randread", cleanup = true,
      args = words("fileio", file, string.format("--file-test-mode=rndrd --file-io-mode=%s --iodepth=%d "
        .. "--file-random-map --file-extra-flags=direct --file-block-size=4K --file-fsync-freq=0", io_mode, iodepth)) },
  }
  local notes = {}
  if vars.net and vars.net ~= "" then
    local host, port = host_port(vars.net)
    -- netperf's TCP_RR: one connection, 1-byte request and response
    workloads[#workloads + 1] = { name = "tcp_rr",
      args = "net --mode=tcp_rr --threads=1 --host=" .. host .. (port and (" --port=" .. port) or "") }
  else
    notes[1] = "tcp_rr left out: no net-server given (start `luabench net-server` on a third host, "
      .. "then --set=net=HOST[:PORT] on both machines)"
  end
  return {
    dir = dir,
    repeats = positive(vars, "repeats", 3),
    options = string.format("--time=%d --report-interval=1 --percentile=50,95,99", time),
    -- fileio wants its directory to exist
    configurations = { { before = vars.file_dir and ("mkdir -p " .. require("luabench.internal.study_plan").quote(file_dir)) } },
    workloads = workloads,
    notes = notes,
  }
end

return M
