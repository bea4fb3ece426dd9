-- fileio's report beyond sysbench's layout: per-direction throughput and latency (submit to
-- reap), the submit and completion parts of asynchronous engines, SQLIO's whole-ms histogram,
-- IOPS per second, achieved depth, process CPU and the device's own counters; and all of it as
-- the JSON result's workload_stats. Figures come from lb_fio_report (src/api/fileio.c), which reads
-- the run's current statistics window (warm-up excluded).
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench

local M = {}
local env

local MiB, MB = 1048576, 1e6
local TABLE_PCTS = { 50, 90, 95, 99, 99.9, 99.99 }
local JSON_PCTS = { 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999 }
local DEPTH_LABELS = { "0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", ">=64" }
-- /proc/diskstats fields (src/io/devstats.h order)
local DEV = { reads = 0, read_merges = 1, read_sectors = 2, read_ms = 3, writes = 4, write_merges = 5,
  write_sectors = 6, write_ms = 7, in_flight = 8, busy_ms = 9, queue_ms = 10, discards = 11,
  flushes = 15, flush_ms = 16 }

function M.setup(e) env = e end

local function pct_key(p)
  return (string.format("%.3f", p):gsub("0+$", ""):gsub("%.$", ""))
end

-- Everything the footer and the JSON need, from one reading of the statistics.
local function collect(stat)
  local c = env.settings()
  local r = ffi.gc(C.lb_fio_report_new(sb.worker), C.lb_fio_report_free)
  local pcts = {}
  for _, p in ipairs(JSON_PCTS) do pcts[#pcts + 1] = p end
  for p in pairs(stat.latency_percentiles or {}) do pcts[#pcts + 1] = p end
  table.sort(pcts)
  local uniq = {}
  for _, p in ipairs(pcts) do if uniq[#uniq] ~= p then uniq[#uniq + 1] = p end end
  pcts = uniq
  local cp = ffi.new("double[?]", #pcts, pcts)
  local function lat(t)
    local out = {}
    for i, p in ipairs(pcts) do out[p] = t.pct_ns[i - 1] end
    local ms = {}
    for i = 0, 24 do ms[i] = tonumber(t.ms[i]) end
    return { count = tonumber(t.count), errors = tonumber(t.errors), sum_ns = t.sum_ns, min_ns = t.min_ns,
      max_ns = t.max_ns, mean_ns = t.mean_ns, stddev_ns = t.stddev_ns, pct = out, ms = ms,
      overflow = tonumber(t.overflow) }
  end
  local d = { secs = stat.time_interval, dirs = {}, c = c }
  local names = { "read", "write", c.fsync_mode }
  for i, name in ipairs(names) do
    local t = ffi.new("struct lb_fio_lat")
    local id = luabench.stats.type(name).id
    if C.lb_fio_report_type(r, id, cp, #pcts, t) ~= 0 and (t.count > 0 or t.errors > 0) then
      local e = lat(t)
      e.name = name
      e.dir = i - 1
      local sub, comp = ffi.new("struct lb_fio_lat"), ffi.new("struct lb_fio_lat")
      if C.lb_fio_report_part(r, i - 1, 0, cp, #pcts, sub) ~= 0 then e.submit = lat(sub) end
      if C.lb_fio_report_part(r, i - 1, 1, cp, #pcts, comp) ~= 0 then e.completion = lat(comp) end
      d.dirs[#d.dirs + 1] = e
    end
  end
  d.bytes = { [0] = stat.bytes_read, [1] = stat.bytes_written, [2] = 0 }
  local wf = ffi.new("struct lb_fio_window")
  C.lb_fio_report_window(r, wf)
  d.win = wf
  d.series = {}
  local n = C.lb_fio_report_series(r, 3, nil, 0)
  for dir = 0, 3 do
    local buf = ffi.new("double[?]", math.max(n, 1))
    C.lb_fio_report_series(r, dir, buf, n)
    local t = {}
    for k = 0, n - 1 do t[k + 1] = buf[k] end
    d.series[dir] = t
  end
  d.nsec = n
  d.pcts = pcts
  return d
end

local function ms(ns) return ns / 1e6 end

local function total_ios(d)
  local n = 0
  for _, e in ipairs(d.dirs) do n = n + e.count end
  return n
end

function M.footer(stat)
  local d = collect(stat)
  local c, wf, secs = d.c, d.win, d.secs
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end

  local kind = c.mode.seq and "sequential" or "random"
  line("File I/O: engine %s, %s, %d thread%s x %d I/O%s in flight, %s %s, %d file%s of %sB in %s",
    c.engine, c.direct and "O_DIRECT" or "buffered (page cache)", c.threads, c.threads == 1 and "" or "s",
    c.depth, c.depth == 1 and "" or "s", kind, c.mode_name, c.nfiles, c.nfiles == 1 and "" or "s",
    env.size_str(c.file_size), c.dir)
  line("")
  if #d.dirs == 0 then
    line("No I/O completed in this window.")
    return table.concat(out, "\n") .. "\n\n"
  end

  line("Throughput by direction (MiB = 2^20 bytes, MB = 10^6 bytes):")
  line("    %-10s %12s %10s %10s %12s %16s %8s", "", "IOPS", "MiB/s", "MB/s", "I/Os", "bytes", "errors")
  local tot_n, tot_b = 0, 0
  for _, e in ipairs(d.dirs) do
    local b = d.bytes[e.dir] or 0
    tot_n, tot_b = tot_n + e.count, tot_b + b
    line("    %-10s %12.2f %10.2f %10.2f %12d %16d %8d", e.name, e.count / secs, b / MiB / secs,
      b / MB / secs, e.count, b, e.errors)
  end
  if #d.dirs > 1 then
    line("    %-10s %12.2f %10.2f %10.2f %12d %16d", "total", tot_n / secs, tot_b / MiB / secs, tot_b / MB / secs,
      tot_n, tot_b)
  end
  line("")

  line("Latency by direction, submit to reap (ms):")
  local hdr = { string.format("    %-18s %9s %9s %9s %9s", "", "min", "avg", "stddev", "max") }
  for _, p in ipairs(TABLE_PCTS) do hdr[#hdr + 1] = string.format(" %9s", "p" .. pct_key(p)) end
  out[#out + 1] = table.concat(hdr)
  local function row(label, e)
    local parts = { string.format("    %-18s %9.3f %9.3f %9.3f %9.3f", label, ms(e.min_ns), ms(e.mean_ns),
      ms(e.stddev_ns), ms(e.max_ns)) }
    for _, p in ipairs(TABLE_PCTS) do parts[#parts + 1] = string.format(" %9.3f", ms(e.pct[p] or 0)) end
    out[#out + 1] = table.concat(parts)
  end
  local parts = false
  for _, e in ipairs(d.dirs) do
    if e.count > 0 then row(e.name, e) end
    parts = parts or e.submit ~= nil
  end
  if parts then
    for _, e in ipairs(d.dirs) do
      if e.submit then row(e.name .. " submit", e.submit) end
      if e.completion then row(e.name .. " completion", e.completion) end
    end
    line("    (asynchronous engine: submit = the submit call; completion = issued to reaped)")
  end
  line("")

  line("Latency histogram, SQLIO style (%% of I/Os in each whole ms):")
  local hh = { string.format("    %-14s", "ms:") }
  for k = 0, 23 do hh[#hh + 1] = string.format("%4d", k) end
  hh[#hh + 1] = " 24+"
  out[#out + 1] = table.concat(hh)
  for _, e in ipairs(d.dirs) do
    if e.count > 0 then
      local t = { string.format("    %-14s", e.name .. " %:") }
      local n = e.count
      for k = 0, 24 do t[#t + 1] = string.format("%4.0f", 100 * e.ms[k] / n) end
      out[#out + 1] = table.concat(t)
    end
  end
  line("")

  if wf.seconds >= 2 then
    line("IOPS over %d whole 1 s intervals:", wf.seconds)
    line("    %-10s %12s %12s %12s %12s", "", "avg", "stddev", "min", "max")
    local labels = { [0] = "read", "write", c.fsync_mode, "total" }
    for k = 0, 3 do
      if wf.iops_max[k] > 0 and (k < 3 or #d.dirs > 1) then
        line("    %-10s %12.2f %12.2f %12.0f %12.0f", labels[k], wf.iops_mean[k], wf.iops_stddev[k],
          wf.iops_min[k], wf.iops_max[k])
      end
    end
  else
    line("IOPS over 1 s intervals: run shorter than 2 whole seconds, no deviation")
  end
  line("")

  if wf.depth_threads > 0 then
    line("Achieved queue depth: %.2f I/Os in flight per thread on average (%d requested), %.2f over %d thread%s",
      wf.depth_sum / wf.depth_threads, c.depth, wf.depth_sum, wf.depth_threads, wf.depth_threads == 1 and "" or "s")
    local t = {}
    for k = 0, 7 do
      if wf.depth_pct[k] >= 0.05 then t[#t + 1] = string.format("%s: %.1f%%", DEPTH_LABELS[k + 1], wf.depth_pct[k]) end
    end
    line("    share of time by I/Os in flight: %s", table.concat(t, ", "))
    line("")
  end

  if wf.have_cpu ~= 0 and wf.cpu_wall_s > 0 then
    local cpu = wf.cpu_user_s + wf.cpu_sys_s
    line("Process CPU: user %.2f s, system %.2f s in %.2f s = %.1f%% of one CPU; %.2f us per I/O",
      wf.cpu_user_s, wf.cpu_sys_s, wf.cpu_wall_s, 100 * cpu / wf.cpu_wall_s,
      tot_n > 0 and cpu / tot_n * 1e6 or 0)
    line("")
  end

  if wf.have_dev ~= 0 then
    local v = function(k) return tonumber(wf.dev[DEV[k]]) end
    local t = wf.cpu_wall_s > 0 and wf.cpu_wall_s or secs
    local merges = wf.dev_source == 2
    line("Device %s (%d:%d) holding %s, its own counters over the window (/proc/diskstats):",
      ffi.string(wf.dev_name), wf.dev_major, wf.dev_minor, c.dir)
    local rb, wb = v("read_sectors") * 512, v("write_sectors") * 512
    -- The size per request shows the kernel splitting (or merging) what the run asked for.
    local function per_req(bytes, n) return n > 0 and bytes / n / 1024 or 0 end
    line("    reads:   %10d (%.1f/s), %.1f MiB, %.1f KiB per request%s, avg wait %.3f ms", v("reads"), v("reads") / t,
      rb / MiB, per_req(rb, v("reads")), merges and string.format(", %d merged", v("read_merges")) or "",
      v("reads") > 0 and v("read_ms") / v("reads") or 0)
    line("    writes:  %10d (%.1f/s), %.1f MiB, %.1f KiB per request%s, avg wait %.3f ms", v("writes"), v("writes") / t,
      wb / MiB, per_req(wb, v("writes")), merges and string.format(", %d merged", v("write_merges")) or "",
      v("writes") > 0 and v("write_ms") / v("writes") or 0)
    line("    flushes: %10d; busy %.1f%% of the time; %.2f requests in flight on average",
      v("flushes"), 100 * v("busy_ms") / 1e3 / t, v("queue_ms") / 1e3 / t)
    local function share(dev, ours)
      if ours <= 0 then return dev > 0 and string.format("%.1f MiB, none from this run", dev / MiB) or "none" end
      return string.format("%.1f%% of this run's", 100 * dev / ours)
    end
    line("    device bytes, reads %s; writes %s", share(rb, d.bytes[0]), share(wb, d.bytes[1]))
    line("    (other processes' I/O, the page cache, merges and splits make these differ from 100%%)")
    line("")
  end
  return table.concat(out, "\n") .. "\n"
end

local function lat_json(e, pcts)
  if not e then return nil end
  local p = {}
  for _, k in ipairs(pcts) do p[pct_key(k)] = e.pct[k] end
  local hist = {}
  for k = 0, 24 do hist[k + 1] = e.ms[k] end
  local pct_ms = {}
  for k = 0, 24 do pct_ms[k + 1] = e.count > 0 and 100 * e.ms[k] / e.count or 0 end
  return { N = e.count, min = e.min_ns, max = e.max_ns, mean = e.mean_ns, stddev = e.stddev_ns,
    sum = e.sum_ns, percentile = p, sqlio_ms_counts = hist, sqlio_ms_pct = pct_ms }
end

function M.json(stat)
  local d = collect(stat)
  local c, wf, secs = d.c, d.win, d.secs
  local blocks = {}
  for _, k in ipairs(c.classes) do blocks[#blocks + 1] = { size = k.size, weight = k.share } end
  local res = {
    test_mode = c.mode_name, io_mode = c.io_mode, engine = c.engine, iodepth = c.depth,
    threads = c.threads, files = c.nfiles, file_size = c.file_size, total_size = c.total,
    directory = c.dir, direct = c.direct, dsync = c.dsync, sync = c.sync, buffered = not c.direct,
    block_sizes = blocks, merged_requests = c.merged, fsync_freq = c.fsync_freq,
    fsync_all = c.fsync_all, fsync_every_io = c.fsync_every_io, fsync_end = c.fsync_end,
    fsync_mode = c.fsync_mode, rw_ratio = c.ratio,
    random_map = c.random_map, seq_shared = c.seq_shared, validate = c.validate,
    runtime_s = secs,
    latency_unit = "ns, from submit to reap",
  }
  local labels = { [0] = "read", "write", "sync" }
  local tot_n, tot_b = 0, 0
  for _, e in ipairs(d.dirs) do
    local b = d.bytes[e.dir] or 0
    tot_n, tot_b = tot_n + e.count, tot_b + b
    res[labels[e.dir]] = {
      op = e.name, total_ios = e.count, errors = e.errors, io_bytes = b, iops = e.count / secs,
      bw_bytes = b / secs, mib_per_s = b / MiB / secs, mb_per_s = b / MB / secs,
      lat_ns = lat_json(e, d.pcts), submit_ns = lat_json(e.submit, d.pcts),
      completion_ns = lat_json(e.completion, d.pcts),
      iops_mean = wf.iops_mean[e.dir], iops_stddev = wf.iops_stddev[e.dir],
      iops_min = wf.iops_min[e.dir], iops_max = wf.iops_max[e.dir],
    }
  end
  res.total = { total_ios = tot_n, io_bytes = tot_b, iops = tot_n / secs, mib_per_s = tot_b / MiB / secs,
    mb_per_s = tot_b / MB / secs, iops_mean = wf.iops_mean[3], iops_stddev = wf.iops_stddev[3],
    iops_min = wf.iops_min[3], iops_max = wf.iops_max[3] }
  res.iops_samples = wf.seconds
  res.iops_per_second = { read = d.series[0], write = d.series[1], sync = d.series[2], total = d.series[3] }
  if wf.depth_threads > 0 then
    local dist = {}
    for k = 0, 7 do dist[DEPTH_LABELS[k + 1]] = wf.depth_pct[k] end
    res.depth = { requested = c.depth, avg_per_thread = wf.depth_sum / wf.depth_threads,
      avg_total = wf.depth_sum, threads = wf.depth_threads, time_pct = dist }
  end
  if wf.have_cpu ~= 0 then
    local cpu = wf.cpu_user_s + wf.cpu_sys_s
    res.cpu = { user_s = wf.cpu_user_s, system_s = wf.cpu_sys_s, wall_s = wf.cpu_wall_s,
      pct_of_one_cpu = wf.cpu_wall_s > 0 and 100 * cpu / wf.cpu_wall_s or 0,
      us_per_io = tot_n > 0 and cpu / tot_n * 1e6 or 0 }
  end
  if wf.have_dev ~= 0 then
    local dev = { name = ffi.string(wf.dev_name), major = wf.dev_major, minor = wf.dev_minor,
      wall_s = wf.cpu_wall_s, source = wf.dev_source == 1 and "system metrics" or "fileio" }
    for k, i in pairs(DEV) do dev[k] = tonumber(wf.dev[i]) end
    if wf.dev_source == 1 then dev.read_merges, dev.write_merges, dev.discards, dev.in_flight = nil, nil, nil, nil end
    dev.read_bytes = dev.read_sectors * 512
    dev.write_bytes = dev.write_sectors * 512
    dev.util_pct = wf.cpu_wall_s > 0 and 100 * dev.busy_ms / 1e3 / wf.cpu_wall_s or 0
    dev.avg_queue = wf.cpu_wall_s > 0 and dev.queue_ms / 1e3 / wf.cpu_wall_s or 0
    res.device = dev
  end
  return res
end

return M
