#!/usr/bin/env luabench
-- log_and_pages.lua: a database's two kinds of disk traffic side by side, with luabench.io.
--
--   thread 0       the log writer: 8 KiB appends to a log file opened with O_DSYNC (and
--                  O_DIRECT), one at a time, each durable before the next ("log write")
--   threads 1..N   page readers: random 16 KiB reads of a data file at --depth I/Os in flight
--                  per thread ("page read")
--
--   luabench examples/log_and_pages.lua --dir=/mnt/db --threads=3 prepare
--   luabench examples/log_and_pages.lua --dir=/mnt/db --threads=3 --time=30 run
--   luabench examples/log_and_pages.lua --dir=/mnt/db cleanup
--
-- Each operation's latency, from submit to completion, is recorded under its own name and
-- shows in the "Transactions by type" table and in the JSON result. Every log record is a
-- self-checking block (header with its offset and CRC32C), so the log can be verified later.
local lio = luabench.io

sysbench.cmdline.options = {
  dir = { "directory for log.dat and data.dat", "." },
  ["data-size"] = { "size of the data file", "256M", sysbench.cmdline.ARG_SIZE },
  ["log-size"] = { "size of the log file (the writer wraps around at its end)", "64M", sysbench.cmdline.ARG_SIZE },
  ["log-block"] = { "bytes per log write", "8K", sysbench.cmdline.ARG_SIZE },
  ["page-size"] = { "bytes per page read", "16K", sysbench.cmdline.ARG_SIZE },
  depth = { "page reads in flight per reader thread", 8 },
  engine = { "I/O engine for the page reads (io_uring, libaio, psync)", "io_uring" },
  direct = { "open both files with O_DIRECT", true },
}

local opt -- sysbench.opt, set once the options are parsed
local function path(name) return opt.dir .. "/" .. name end

function prepare()
  opt = sysbench.opt
  local state, bytes, secs = lio.prepare(path("data.dat"), opt.data_size, { direct = opt.direct })
  print(string.format("data.dat: %s, %.0f MiB written in %.2f s", state, bytes / 1048576, secs))
  state, bytes, secs = lio.prepare(path("log.dat"), opt.log_size, { direct = opt.direct })
  print(string.format("log.dat: %s, %.0f MiB written in %.2f s", state, bytes / 1048576, secs))
end

function cleanup()
  opt = sysbench.opt
  os.remove(path("data.dat"))
  os.remove(path("log.dat"))
end

-- Per thread: the log writer's file and buffer, or a reader's file, queue and buffers.
local log, log_buf, log_pos, log_seq
local data, queue, pages, free, nfree, npages

function thread_init(tid)
  opt = sysbench.opt
  local direct = opt.direct and "direct," or ""
  if tid == 0 then
    log = lio.open(path("log.dat"), direct .. "dsync")
    log_buf = lio.buffer(opt.log_block, log.mem_align)
    log_pos, log_seq = 0, 0
  else
    data = lio.open(path("data.dat"), direct ~= "" and "direct" or "")
    queue = lio.queue { engine = opt.engine, depth = opt.depth }
    pages = lio.buffer(opt.depth * opt.page_size, data.mem_align)
    free, nfree = {}, opt.depth
    for i = 1, opt.depth do free[i] = i - 1 end
    npages = math.floor(data.size / opt.page_size)
  end
end

local uniform = sysbench.rand.uniform

function event(tid)
  if tid == 0 then
    -- One durable append; wrap at the end of the log, as a circular WAL does.
    log_seq = log_seq + 1
    lio.block_fill(log_buf, opt.log_block, log_pos, log_seq)
    log:pwrite(log_buf, opt.log_block, log_pos, "log write")
    log_pos = (log_pos + opt.log_block) % (math.floor(opt.log_size / opt.log_block) * opt.log_block)
    return
  end
  -- Keep `depth` page reads in flight; the event ends when at least one has completed.
  while nfree > 0 do
    local b = free[nfree]
    nfree = nfree - 1
    local page = uniform(0, npages - 1)
    queue:read(data, pages + b * opt.page_size, opt.page_size, page * opt.page_size, "page read", b)
  end
  local n = queue:reap(1)
  for i = 0, n - 1 do
    nfree = nfree + 1
    free[nfree] = queue:tag(i)
  end
end

function thread_done(tid)
  if queue then queue:close() end
  if log then log:close() end
  if data then data:close() end
end

function sysbench.hooks.report_footer(stat)
  local w, r = stat.types["log write"], stat.types["page read"]
  if not (w and r) then return nil end
  return string.format("Log writes: %.0f/s, p99 %.3f ms; page reads: %.0f/s, p99 %.3f ms\n",
    w.count / stat.time_interval, w.p99 * 1e3, r.count / stat.time_interval, r.p99 * 1e3)
end
