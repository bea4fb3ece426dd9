-- fileio: sysbench 1.0.20's file I/O benchmark (same options, modes, request sequence,
-- messages and report), on the luabench.io engine layer, plus what a DBA qualifying a disk
-- needs: engines psync/libaio/io_uring/mmap, a real queue depth per thread (--iodepth),
-- weighted block-size mixes, random with or without repeats, per-thread or shared sequential
-- positions, any combination of direct/dsync/sync, checksummed blocks (--validate), and a
-- report with per-direction IOPS, MiB/s and MB/s, latency from submit to reap (not sysbench's
-- submit-only figure in async mode), an SQLIO-style histogram, IOPS deviation per second,
-- achieved depth, process CPU and the device's own counters. See doc/workloads/fileio.md.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
local lio = luabench.io
local A = sb.cmdline

sb.cmdline.options = {
  ["file-num"] = { "number of files to create", 128, A.ARG_INT },
  ["file-block-size"] = { "block size to use in all IO operations, or a weighted mix SIZE:WEIGHT,... (e.g. 8K:60,64K:30,512K:10)", "16384", A.ARG_STRING },
  ["file-total-size"] = { "total size of files to create", "2G", A.ARG_SIZE },
  ["file-test-mode"] = { "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw, seqrw}", nil, A.ARG_STRING },
  ["file-io-mode"] = { "file operations mode {sync,async,io_uring,mmap} (or an engine: psync, libaio, null)", "sync", A.ARG_STRING },
  ["file-async-backlog"] = { "number of asynchronous operations to queue per thread (same as --iodepth)", 128, A.ARG_INT },
  ["file-extra-flags"] = { "list of additional flags to use to open files {sync,dsync,direct}", {}, A.ARG_LIST },
  ["file-fsync-freq"] = { "do fsync() after this number of requests (0 - don't use fsync())", 100, A.ARG_INT },
  ["file-fsync-all"] = { "do fsync() after each write operation", false, A.ARG_BOOL },
  ["file-fsync-every-io"] = { "do fsync() after each read and write once the thread has written, as fio's fsync=1/fdatasync=1 in a mixed job (implies --file-fsync-all)", false, A.ARG_BOOL },
  ["file-fsync-end"] = { "do fsync() at the end of test", true, A.ARG_BOOL },
  ["file-fsync-mode"] = { "which method to use for synchronization {fsync, fdatasync}", "fsync", A.ARG_STRING },
  ["file-merged-requests"] = { "merge at most this number of IO requests if possible (0 - don't merge)", 0, A.ARG_INT },
  ["file-rw-ratio"] = { "reads/writes ratio for combined test", 1.5, A.ARG_DOUBLE },
  ["iodepth"] = { "I/Os kept in flight per thread by the async and io_uring modes (default: --file-async-backlog)", 0, A.ARG_INT },
  ["file-dir"] = { "directory that holds the test files", "." , A.ARG_STRING },
  ["file-block-align"] = { "alignment of random offsets (0 = the request's own size, as sysbench)", "0", A.ARG_SIZE },
  ["file-random-map"] = { "random modes: visit every block once per pass (a random permutation, as fio) instead of uniform draws with repeats (as sysbench)", false, A.ARG_BOOL },
  ["iodepth-batch-complete"] = { "most completions reaped per call (as fio's iodepth_batch_complete_max; 1 keeps the queue full, larger values save system calls)", 1, A.ARG_INT },
  ["file-seq-shared"] = { "sequential modes: one position shared by all threads (as sysbench); off = one per thread, starting at evenly spaced offsets", true, A.ARG_BOOL },
}

local MODES = {
  seqwr = { seq = true, write = true, creation = true, name = "sequential write (creation)" },
  seqrewr = { seq = true, write = true, name = "sequential rewrite" },
  seqrd = { seq = true, read = true, name = "sequential read" },
  rndrd = { read = true, name = "random read" },
  rndwr = { write = true, name = "random write" },
  rndrw = { read = true, write = true, rw = true, name = "random r/w" },
  -- luabench: fio's rw=readwrite, reads and writes each at a sequential position of their own
  seqrw = { seq = true, read = true, write = true, rw = true, split = true, luabench = true, name = "sequential r/w" },
}
local IO_MODES = {
  sync = { engine = "psync", label = "synchronous" },
  async = { engine = "libaio", label = "asynchronous" },
  io_uring = { engine = "io_uring", label = "asynchronous (io_uring)" },
  mmap = { engine = "mmap", label = "fast mmaped" },
  psync = { engine = "psync", label = "synchronous" },
  libaio = { engine = "libaio", label = "asynchronous" },
  null = { engine = "null", label = "null (no data moved)" },
}

local MiB, MB = 1048576, 1e6

-- Statistics types: one per direction, the same ids in every Lua state.
local T_READ = luabench.stats.type("read")
local T_WRITE = luabench.stats.type("write")

-- Sizes ------------------------------------------------------------------------------------------

local SUFFIX = { [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4, p = 1024 ^ 5 }

local function parse_size(s, what)
  local num, suf = tostring(s):lower():match("^%s*(%d+%.?%d*)%s*([kmgtp]?)i?b?%s*$")
  local v = num and tonumber(num) * SUFFIX[suf]
  if not v or v ~= math.floor(v) then
    error(string.format("Invalid value for %s: %s.", what, tostring(s)), 0)
  end
  return v
end

-- sysbench's size format: %.5g of the largest binary unit below the value ("4Mi", "1000");
-- callers append the "B".
local UNITS = { "", "Ki", "Mi", "Gi", "Ti", "Pi" }
local function size_str(v)
  local i = 1
  while v >= 1024 and i < #UNITS do v = v / 1024; i = i + 1 end
  local s = string.format("%.5g", v)
  return s .. UNITS[i]
end

-- "16384", "16K" or a mix "8K:60,64K:30,512K:10" (a missing weight shares what is left).
local function parse_blocks(spec)
  -- one size that is not one: sysbench reads it as 0 ("Invalid value for file-block-size: 0.")
  if not tostring(spec):find("[,:]") and not pcall(parse_size, spec, "") then
    error("Invalid value for file-block-size: 0.", 0)
  end
  local classes, given, blanks = {}, 0, 0
  for item in tostring(spec):gmatch("[^,]+") do
    local sz, wt = item:match("^%s*([^:]+):?%s*(.-)%s*$")
    local c = { size = parse_size(sz or "", "file-block-size") }
    if c.size <= 0 then error(string.format("Invalid value for file-block-size: %s.", item), 0) end
    if wt ~= "" then
      c.weight = tonumber(wt)
      if not c.weight or c.weight < 0 then
        error(string.format("Invalid weight in --file-block-size: %s (use SIZE:WEIGHT, e.g. 8K:60)", item), 0)
      end
      given = given + c.weight
    else
      blanks = blanks + 1
    end
    classes[#classes + 1] = c
  end
  if #classes == 0 then error("Invalid value for file-block-size: (empty).", 0) end
  local share = blanks > 0 and math.max(100 - given, 0) / blanks or 0
  if given == 0 then share = 1 end
  local sum = 0
  for _, c in ipairs(classes) do
    c.weight = c.weight or share
    sum = sum + c.weight
  end
  if sum <= 0 then error("The weights in --file-block-size add up to 0.", 0) end
  local acc = 0
  for _, c in ipairs(classes) do
    c.share = c.weight / sum
    acc = acc + c.share
    c.cum = acc
  end
  classes[#classes].cum = 1
  return classes
end

-- Settings ---------------------------------------------------------------------------------------

local cfg

local function settings()
  if cfg then return cfg end
  local o = sb.opt
  local c = {}
  c.command = sb.cmdline.command
  c.nfiles = o.file_num
  if c.nfiles <= 0 then error(string.format("Invalid value for file-num: %d", c.nfiles), 0) end
  c.total_req = o.file_total_size
  if c.total_req <= 0 then error(string.format("Invalid value for file-total-size: %d", c.total_req), 0) end
  c.file_size = math.floor(c.total_req / c.nfiles)
  c.total = c.file_size * c.nfiles
  c.mode_name = o.file_test_mode
  if c.mode_name == "" then c.mode_name = nil end
  c.mode = c.mode_name and MODES[c.mode_name]
  if c.command == "run" and not c.mode_name then
    -- sysbench: the FATAL line and an empty line, the NOTICE "fileio options:", then the list
    -- (printed whatever the level); the error itself adds nothing
    if sb._sysbench_help then
      sb._log(0, "Missing required argument: --file-test-mode\n\n")
      local head, list = sb._sysbench_help:match("^([^\n]*)\n(.*)$")
      sb._log(3, head)
      io.stdout:write(list)
      io.stdout:flush()
      error("", 0)
    end
    error("Missing required argument: --file-test-mode (one of seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw, seqrw; see 'luabench fileio help')", 0)
  end
  -- refused by prepare too (sysbench's prepare ignores it), before any file is written
  -- luabench's own modes do not exist for sysbench
  if c.mode and c.mode.luabench and not sb.additions then c.mode = nil end
  if c.mode_name and not c.mode and c.command ~= "cleanup" then
    error(string.format("Invalid IO operations mode: %s.", c.mode_name), 0)
  end
  c.io_mode = o.file_io_mode ~= "" and o.file_io_mode or "sync"
  c.io = IO_MODES[c.io_mode]
  if not c.io then error(string.format("unknown I/O mode: %s", c.io_mode), 0) end
  c.engine = c.io.engine
  c.caps = lio.capabilities(c.engine)
  c.merged = o.file_merged_requests
  if c.merged < 0 then error(string.format("Invalid value for file-merged-requests: %d.", c.merged), 0) end
  c.classes = parse_blocks(o.file_block_size)
  c.block_spec = o.file_block_size
  c.block = c.classes[1].size -- the single size, or the first of a mix
  c.mix = #c.classes > 1
  c.max_size, c.min_size = 0, math.huge
  for _, k in ipairs(c.classes) do
    c.max_size = math.max(c.max_size, k.size)
    c.min_size = math.min(c.min_size, k.size)
  end
  c.req_mult = c.merged > 0 and c.mode and c.mode.seq and c.merged or 1
  c.max_req = c.max_size * c.req_mult
  c.flags_list = {}
  local fl = { sync = false, dsync = false, direct = false }
  for _, v in ipairs(o.file_extra_flags or {}) do
    if v ~= "" then
      if fl[v] == nil then
        error(string.format("Invalid value for file-extra-flags: %s", table.concat(o.file_extra_flags, ",")), 0)
      end
      fl[v] = true
    end
  end
  -- mmap copies through the page cache whatever the open flags: a run asked for with direct
  -- is buffered, so it is opened, labelled and reported as buffered (init warns).
  if fl.direct and c.caps and not c.caps.direct then
    fl.direct, c.direct_ignored = false, true
  end
  c.sync, c.dsync, c.direct = fl.sync, fl.dsync, fl.direct
  for _, k in ipairs({ "sync", "dsync", "direct" }) do
    if fl[k] then c.flags_list[#c.flags_list + 1] = k end
  end
  c.open_flags = table.concat(c.flags_list, ",")
  c.fsync_freq = o.file_fsync_freq
  if c.fsync_freq < 0 then error(string.format("Invalid value for file-fsync-freq: %d.", c.fsync_freq), 0) end
  c.fsync_every_io = o.file_fsync_every_io
  c.fsync_all = o.file_fsync_all or c.fsync_every_io
  c.fsync_end = o.file_fsync_end
  if c.fsync_all then c.fsync_end, c.fsync_freq = false, 0 end
  c.fsync_mode = o.file_fsync_mode
  if c.fsync_mode ~= "fsync" and c.fsync_mode ~= "fdatasync" then
    error(string.format("Invalid fsync mode: %s.", c.fsync_mode), 0)
  end
  c.sync_op = c.fsync_mode == "fsync" and lio.FSYNC or lio.FDATASYNC
  c.ratio = o.file_rw_ratio
  if c.ratio < 0 then error(string.format("Invalid value for --file-rw-ratio: %f.", c.ratio), 0) end
  sb._strict_options()
  c.backlog = o.file_async_backlog
  -- sysbench reads the backlog for an asynchronous run only (a sync run or prepare ignores it)
  if c.backlog <= 0 and (c.io_mode == "async" or c.io_mode == "io_uring") and c.command == "run" then
    error(string.format("Invalid value of file-async-backlog: %d", c.backlog), 0)
  end
  if c.backlog <= 0 then c.backlog = 128 end
  -- null queues but moves nothing: it runs one I/O at a time whatever --iodepth says
  c.async = c.caps ~= nil and c.caps.queue and c.caps.moves_data
  c.iodepth_opt = o.iodepth
  if c.iodepth_opt < 0 or c.iodepth_opt > 65536 then
    error(string.format("Invalid value for iodepth: %d (1..65536)", c.iodepth_opt), 0)
  end
  c.depth = c.async and (c.iodepth_opt > 0 and c.iodepth_opt or c.backlog) or 1
  -- each engine's own limit, said before anything runs (the kernel would refuse the queue)
  local most, why = lio.max_depth(c.engine)
  if c.async and most > 0 and c.depth > most then
    error(string.format("--iodepth=%d: the %s engine holds at most %d I/Os in flight per thread (%s)",
      c.depth, c.engine, most, why), 0)
  end
  c.reap_batch = o.iodepth_batch_complete
  if c.reap_batch < 1 then error(string.format("Invalid value for iodepth-batch-complete: %d", c.reap_batch), 0) end
  c.dir = o.file_dir ~= "" and o.file_dir or "."
  c.align_opt = o.file_block_align
  c.random_map = o.file_random_map
  c.seq_shared = o.file_seq_shared
  c.validate = o.validate
  c.threads = o.threads
  c.events = o.events
  for _, k in ipairs(c.classes) do
    k.align = c.align_opt > 0 and c.align_opt or k.size
    if k.size > c.file_size then
      error(string.format("--file-block-size %s is larger than each file (%s = --file-total-size / --file-num)",
        size_str(k.size) .. "B", size_str(c.file_size) .. "B"), 0)
    end
    k.slots = math.floor((c.file_size - k.size) / k.align) + 1
  end
  if c.validate then
    c.vblock = c.min_size
    for _, k in ipairs(c.classes) do
      if k.size % c.vblock ~= 0 or k.align % c.vblock ~= 0 then
        error(string.format("--validate needs every block size and the alignment to be multiples of the smallest block size (%sB)", size_str(c.vblock)), 0)
      end
    end
    if c.vblock < lio.BLOCK_HEADER then
      error(string.format("--validate needs blocks of at least %d bytes", lio.BLOCK_HEADER), 0)
    end
    if c.file_size % c.vblock ~= 0 then
      error(string.format("--validate needs the file size (%d bytes) to be a multiple of the block size (%sB)", c.file_size, size_str(c.vblock)), 0)
    end
  end
  cfg = c
  return c
end

local function file_path(i)
  -- in the working directory the bare name, as sysbench prints it
  return (cfg.dir == "." and "" or cfg.dir .. "/") .. "test_file." .. i
end

-- O_DIRECT alignment ----------------------------------------------------------------------------

local function direct_misaligned(what, f)
  local a = f.align
  error(string.format("%s is not a multiple of %d bytes: O_DIRECT on %s needs offsets, lengths " ..
    "and buffers aligned to %d bytes (the filesystem's DIO alignment); choose a multiple of %d",
    what, a, f.path, a, a), 0)
end

-- The file size is fixed by prepare: checked there too, so a prepare never succeeds for a run
-- that must refuse it.
local function check_direct_size(c, f)
  if c.file_size % f.align ~= 0 then
    direct_misaligned(string.format("the file size %d (--file-total-size / --file-num)", c.file_size), f)
  end
end

local function check_direct(c, f)
  for _, k in ipairs(c.classes) do
    if k.size % f.align ~= 0 then direct_misaligned(string.format("--file-block-size=%d", k.size), f) end
    if k.align % f.align ~= 0 then direct_misaligned(string.format("--file-block-align=%d", k.align), f) end
  end
  check_direct_size(c, f)
end

local function existing_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

-- The alignment is the filesystem's (statx on a file in --file-dir): open test_file.0 for it,
-- creating it if need be, and remove it again if it was created here, so that prepare still
-- says "Creating file" for it.
local function check_direct_prepare(c)
  local path = file_path(0)
  local existed = existing_size(path) ~= nil
  local f = lio.open(path, existed and "rdonly" or "create")
  local ok, err = pcall(check_direct_size, c, f)
  f:close()
  if not existed then os.remove(path) end
  if not ok then error(err, 0) end
end

-- prepare / cleanup --------------------------------------------------------------------------

-- prepare's and cleanup's lines are sysbench's log at NOTICE: --verbosity below 3 silences them.
local function notice(s) sb._log(3, s) end

local function print_flags(c)
  local s = c.sync and "sync " or ""
  s = s .. (c.dsync and "dsync " or "") .. (c.direct and "directio" or "")
  notice("Extra file open flags: " .. (s == "" and "(none)" or s))
end

-- A prepare write size that is a multiple of 4096 and of the validation block.
local function prepare_block(c)
  if not c.validate then return 0 end
  local b = c.vblock
  local function gcd(a, x) while x ~= 0 do a, x = x, a % x end return a end
  local l = b / gcd(b, 4096) * 4096
  return l * math.max(1, math.floor(MiB / l))
end

-- Every mode prepares the same files, seqwr included (sysbench 1.0.20's binary creates them for
-- it as for any other mode; its test suite expects "Creating file test_file.N").
function prepare()
  local c = settings()
  notice(string.format("%d files, %dKb each, %dMb total", c.nfiles, math.floor(c.file_size / 1024),
    math.floor(c.total / MiB)))
  notice("Creating files for the test...")
  print_flags(c)
  if c.direct then check_direct_prepare(c) end
  if (c.dsync or c.sync) and sb.additions then
    sb._log(2, "prepare writes without dsync/sync (each file is fsync'ed at the end)")
  end
  local written, t0 = 0, sb.time()
  local verbs = { created = "Creating file", reused = "Reusing existing file",
    extended = "Extending existing file", truncated = "Truncating existing file" }
  for i = 0, c.nfiles - 1 do
    local path = file_path(i)
    -- a file of the right size (or longer) that is "extended" has holes (never written): say so
    local full_size = (existing_size(path) or -1) >= c.file_size
    local function progress(done, total, bytes, secs)
      if not sb.additions then return end
      notice(string.format("    test_file.%d: %.0f of %.0f MiB (%.0f%%), %.1f MB/s", i, done / MiB,
        total / MiB, 100 * done / total, bytes / secs / MB))
    end
    local _, bytes = lio.prepare(path, c.file_size, {
      direct = c.direct, check_block = c.validate and c.vblock or 0, block = prepare_block(c),
      -- a longer file is reused as it is, as sysbench's binary does
      keep_longer = true,
      progress = progress,
      start = function(state, to_write)
        if state == "extended" and full_size then
          notice(string.format("Rewriting existing file test_file.%d from byte %.0f (it has holes: never written)",
            i, c.file_size - to_write))
        else
          notice(verbs[state] .. " test_file." .. i)
        end
      end,
    })
    written = written + bytes
  end
  local secs = sb.time() - t0
  if written > 0 then
    local mbs = sb.additions and string.format(", %.2f MB/sec", written / MB / secs) or ""
    notice(string.format("%d bytes written in %.2f seconds (%.2f MiB/sec%s).", written, secs,
      written / MiB / secs, mbs))
  else
    notice("No bytes written.")
  end
end

local ENOENT, ENOTDIR = 2, 20

-- A missing --file-dir would make every removal "succeed" (nothing there): say so instead.
-- (Other failures to open it, e.g. no read permission, do not stop removals.)
local function check_dir(dir)
  local f, _, code = io.open(dir .. "/.", "rb")
  if f then f:close() end
  if code == ENOENT or code == ENOTDIR then
    error(string.format("directory %s does not exist (--file-dir)", dir), 0)
  end
end

function cleanup()
  local c = settings()
  notice("Removing test files...")
  check_dir(c.dir)
  for i = 0, c.nfiles - 1 do
    local path = file_path(i)
    local ok, msg, code = os.remove(path)
    -- a file that is not there is already cleaned up
    if not ok and code ~= ENOENT then
      error(string.format("cannot remove %s: %s", path, (tostring(msg):gsub("^.-: ", ""))), 0)
    end
  end
end

-- run: setup in the control state ---------------------------------------------------------------

local files_keep = {}   -- control state: the open files (shared with the workers by pointer)
local notes = {}        -- header lines beyond sysbench's

function init()
  local c = settings()
  -- The engine, probed here once (io_uring may be disabled by the kernel or a sandbox).
  local probe = lio.queue { engine = c.engine, depth = c.depth, quiet = true }
  if probe.fallback then
    io.stderr:write("WARNING: ", probe.fallback, "\n")
    notes[#notes + 1] = "I/O engine: " .. probe.engine .. " (" .. c.engine .. " not available here)"
  end
  if probe.engine ~= c.engine then c.io = IO_MODES[probe.engine] end
  c.engine = probe.engine
  c.caps = lio.capabilities(c.engine)
  c.async = probe.async
  if not c.async then c.depth = 1 end
  probe:close()
  local eng = sb.shared("fileio.engine", "char", 32)
  ffi.copy(eng, c.engine)
  sb.shared("fileio.depth", "uint32_t")[0] = c.depth
  if c.iodepth_opt > 1 and not c.async then
    io.stderr:write(string.format("WARNING: --iodepth=%d has no effect with the %s engine: it completes each I/O before the next (use --file-io-mode=async or io_uring)\n",
      c.iodepth_opt, c.engine))
  end

  if c.direct_ignored then
    io.stderr:write("WARNING: the mmap mode goes through the page cache: --file-extra-flags=direct is ignored " ..
      "(the files are opened without O_DIRECT; the run is buffered)\n")
  end
end

local function open_failure(path, msg)
  if not msg:find("no such file", 1, true) then return msg end
  if not sb.additions then
    return string.format("Cannot open file '%s' errno = 2 (No such file or directory)\n" ..
      "WARNING: Did you forget to run the prepare step?", path)
  end
  return string.format("Cannot open file '%s': no such file. Did you forget to run the prepare step?", path)
end

-- The files are opened after the header, as sysbench's file test does.
function sb.hooks.before_threads()
  local c = settings()
  local ptrs = sb.shared("fileio.files", "struct lb_io_file *", c.nfiles)
  for i = 0, c.nfiles - 1 do
    local path = file_path(i)
    if c.mode.creation then
      local err = ffi.new("char[512]")
      -- sysbench's creation test starts from empty files; mmap cannot extend a file, so its
      -- files get their size up front (as sysbench does); the mmap engine reserves their
      -- blocks when it maps them, so a full disk is ENOSPC, not SIGBUS.
      if C.lb_fio_create(path, c.caps.sized_files and c.file_size or 0, err, 512) < 0 then
        error(ffi.string(err), 0)
      end
    end
    sb._log(5, "Opening file: " .. path) -- sysbench's DEBUG line
    -- The access pattern as a hint (fio's fadvise_hint): read-ahead off for random modes.
    local hint = c.mode.seq and "sequential" or "random"
    local ok, f = pcall(lio.open, path, c.open_flags == "" and hint or c.open_flags .. "," .. hint)
    if not ok then error(open_failure(path, tostring(f)), 0) end
    if not c.mode.creation and f.size < c.file_size then
      -- sysbench: a FATAL line, then its hint as a WARNING line of its own
      error(string.format("Size of file '%s' is %sB, but at least %sB is expected.%s", path, size_str(f.size),
        size_str(c.file_size), sb.additions and " Did you run 'prepare' with different --file-total-size or --file-num values?"
        or "\nWARNING: Did you run 'prepare' with different --file-total-size or --file-num values?"), 0)
    end
    if c.direct then check_direct(c, f) end
    if i == 0 then
      local why = lio.degraded(c.engine, f)
      if why then
        if sb.additions then io.stderr:write("WARNING: ", why, "\n") end
        notes[#notes + 1] = "Warning: libaio on buffered files blocks in io_submit: the I/Os run one at a time " ..
          "(throughput of depth 1); the achieved depth below counts each I/O until it is reaped, so it does not show this"
      end
    end
    files_keep[i] = f
    ptrs[i] = f.ptr
  end
  local err = ffi.new("char[512]")
  if C.lb_fio_watch(sysbench.worker, c.dir, err, 512) < 0 then
    notes[#notes + 1] = "Device counters: not available (" .. ffi.string(err) .. ")"
  end
end

function done()
  for _, f in pairs(files_keep) do f:close() end
end

function sb.hooks.run_header()
  local c = settings()
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  local s = (c.sync and "sync " or "") .. (c.dsync and "dsync " or "") .. (c.direct and "directio" or "")
  line("Extra file open flags: %s", s == "" and "(none)" or s)
  line("%d files, %sB each", c.nfiles, size_str(c.file_size))
  line("%sB total file size", size_str(c.file_size * c.nfiles))
  if c.mix then
    local parts = {}
    for _, k in ipairs(c.classes) do parts[#parts + 1] = string.format("%sB %.4g%%", size_str(k.size), 100 * k.share) end
    line("Block size mix %s", table.concat(parts, ", "))
  else
    line("Block size %sB", size_str(c.block))
  end
  if c.merged > 0 then line("Merging requests up to %sB for sequential IO.", size_str(c.block * c.merged)) end
  if not c.mode.seq then
    line("Number of IO requests: %d", c.events)
    line("Read/Write ratio for combined random IO test: %2.2f", c.ratio)
  elseif c.mode.rw then
    line("Number of IO requests: %d", c.events)
    line("Read/Write ratio for combined sequential IO test: %2.2f", c.ratio)
  end
  if c.fsync_freq > 0 then line("Periodic FSYNC enabled, calling fsync() each %d requests.", c.fsync_freq) end
  if c.fsync_end then line("Calling fsync() at the end of test, Enabled.") end
  if c.fsync_every_io then
    line("Calling %s() after each read and write operation, once the thread has written.", c.fsync_mode)
  elseif c.fsync_all then
    line("Calling fsync() after each write operation.")
  end
  line("Using %s I/O mode", c.io.label)
  if c.validate then line("Using checksums validation.") end
  line("Doing %s test", c.mode.name)
  return table.concat(out, "\n") .. "\n"
end

-- luabench's additions, after sysbench's lines (not printed when running as sysbench).
function sb.hooks.run_notes()
  local c = settings()
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  line("I/O engine %s, %d I/O%s in flight per thread%s%s", c.engine, c.depth, c.depth == 1 and "" or "s",
    c.direct and ", O_DIRECT" or ", buffered (page cache: results include cache effects)",
    c.mode.seq and (c.mode.split and (c.seq_shared and ", a read and a write position shared by all threads" or ", a read and a write position per thread")
      or c.seq_shared and ", one sequential position shared by all threads" or ", one sequential position per thread")
      or (c.random_map and ", random without repeats (a permutation per pass)" or ", random with repeats"))
  for _, n in ipairs(notes) do line("%s", n) end
  return table.concat(out, "\n") .. "\n"
end

-- run: the worker loop ---------------------------------------------------------------------------

local floor = math.floor

-- The requests of one thread, in sysbench's sequence: every fsync_freq requests, when dirty,
-- one fsync per file in turn; rndrw reads while (reads + 1) / (writes + 1) < ratio. Returns
-- gen() -> op, file index, offset, length, and redraw(op) -> the same for a random request
-- whose bytes were busy (--validate): it is not counted, another is drawn.
-- sysbench 1.0.20 checks each sequential request against the one before it under --validate,
-- and a single file that starts over fails its check: "WARNING: Discovered too large position
-- difference in seq request!" once, the later ones folded by its log into "(last message
-- repeated N times)". A false alarm (nothing is wrong), printed by the sysbench personality
-- only, as the binary prints it: the starts at offset 0 are counted across threads, the second
-- warns, and the last thread to finish prints the fold.
local function seq_restarts(c)
  if sb.additions or not (c.validate and c.mode.seq and c.nfiles == 1 and c.seq_shared) then return nil end
  return sb.shared("fileio.seq_starts", "uint64_t")
end

local WARN_SEQ = "Discovered too large position difference in seq request!"

local function note_seq_start(starts)
  if tonumber(C.lb_fio_ticket(starts, 1)) == 1 then sb._log(2, WARN_SEQ) end
end

local function fold_seq_warnings(starts)
  local folded = starts and tonumber(sb.atomic_load(starts)) - 2 or 0
  if folded > 0 and (tonumber(sb.opt.verbosity) or 3) >= 2 then
    io.stdout:write(string.format("(last message repeated %d times)\n", folded))
    io.stdout:flush()
  end
end

local function request_generator(c, tid)
  local mode, nfiles, file_size, total = c.mode, c.nfiles, c.file_size, c.total
  local READ, WRITE, SYNC = lio.READ, lio.WRITE, c.sync_op
  local rng, rand = sb.rand.rng, C.lb_rand_double
  local classes, nclasses = c.classes, #c.classes
  local single = classes[1]
  local reads, writes, performed, dirty, fsync_file = 0, 0, 0, false, 0
  local fsync_freq, ratio = c.fsync_freq, c.ratio
  local rw, want_write = mode.rw, mode.write and not mode.read
  local seq = mode.seq
  local lenbuf = ffi.new("uint64_t[1]")
  -- seqrw: reads and writes each go on from their own position, as fio's rw=readwrite does
  local cursor, wcursor
  local function new_cursor(name)
    if c.seq_shared then return sb.shared(name, "uint64_t") end
    local cur = ffi.new("uint64_t[1]")
    local step = c.max_req
    cur[0] = floor(total * tid / c.threads / step) * step
    return cur
  end
  if seq then
    cursor = new_cursor("fileio.cursor")
    wcursor = mode.split and new_cursor("fileio.cursor.write") or cursor
  end
  if c.random_map then
    for i, k in ipairs(classes) do
      k.ctr = sb.shared("fileio.perm." .. i, "uint64_t")
      k.key = 0x9e3779b9 * i + (tonumber(sb.opt.rand_seed) or 0)
    end
  end
  local req_mult = c.req_mult
  local starts = seq_restarts(c)

  local function pick_class()
    if nclasses == 1 then return single end
    local u = rand(rng)
    for i = 1, nclasses do
      if u < classes[i].cum then return classes[i] end
    end
    return classes[nclasses]
  end

  local function gen()
    local write
    if rw then write = (reads + 1) / (writes + 1) >= ratio else write = want_write end
    if fsync_freq > 0 and dirty and performed % fsync_freq == 0 then
      local fi = fsync_file
      fsync_file = fsync_file + 1
      if fsync_file == nfiles then fsync_file, dirty = 0, false end
      return SYNC, fi, 0, 0
    end
    performed = performed + 1
    local op = READ
    if write then
      op, dirty, writes = WRITE, true, writes + 1
    else
      reads = reads + 1
    end
    local k = pick_class()
    if seq then
      local pos = tonumber(C.lb_fio_seq_next(write and wcursor or cursor, k.size * req_mult, file_size, total, lenbuf))
      if starts and pos == 0 then note_seq_start(starts) end
      local fi = floor(pos / file_size)
      return op, fi, pos - fi * file_size, tonumber(lenbuf[0])
    end
    local n = nfiles * k.slots
    local s
    if k.key then
      s = tonumber(C.lb_fio_perm(C.lb_fio_ticket(k.ctr, 1), n, k.key))
    else
      s = floor(rand(rng) * n)
    end
    local fi = floor(s / k.slots)
    return op, fi, (s - fi * k.slots) * k.align, k.size
  end

  local function redraw(op)
    performed = performed - 1
    if op == WRITE then writes = writes - 1 else reads = reads - 1 end
    return gen()
  end
  return gen, redraw
end

-- One buffer per I/O in flight, filled with a non-zero pattern (writes of zeros can be
-- optimized away by some storage), and the stack of free ones (indexes 0 .. depth - 1).
local function io_buffers(depth, max_req, first_file, tid)
  local mem_align = math.max(C.lb_io_file_mem_align(first_file), 4096)
  local bufs = lio.buffer(depth * max_req, mem_align)
  lio.pattern_fill(bufs, depth * max_req, 0, tid + 1)
  local free = {}
  for i = 1, depth do free[i] = depth - i end
  return bufs, free
end

-- The one line for a failed or short I/O.
local function io_failure(what, path, io)
  local e = io.error
  if e ~= 0 then
    local msg = lio.strerror(e)
    if e == -28 then msg = msg .. " (the disk is full)" end
    if e == -27 then msg = msg .. " (the file size limit, ulimit -f, or the filesystem's maximum)" end
    return string.format("%s %s at offset %d failed: %s", what, path, tonumber(io.offset_bytes), msg)
  end
  return string.format("short %s of %s at offset %d: %d of %d bytes (is the file shorter than --file-total-size / --file-num?)",
    what, path, tonumber(io.offset_bytes), tonumber(io.result_bytes), tonumber(io.length_bytes))
end

-- --validate: every block of a read carries the checksum and offset it was written with.
local function verify_read(ptr, io, vb, path, errbuf)
  local off = tonumber(io.offset_bytes)
  for k = 0, tonumber(io.length_bytes) / vb - 1 do
    if C.lb_io_block_verify(ptr + k * vb, vb, off + k * vb, nil, errbuf, 256) ~= 0 then
      error(string.format("Validation failed on %s: %s (were the files prepared with --validate and the same --file-block-size?)",
        path, ffi.string(errbuf)), 0)
    end
  end
end

-- The queue and its buffers, made before the clock starts: at a depth of thousands, allocating and
-- filling the buffers (a GiB at 65536 x 16 KiB) took the whole of a short run.
local ready

function thread_init(tid)
  local c = settings()
  local depth = sb.shared("fileio.depth", "uint32_t")[0]
  local engine = ffi.string(sb.shared("fileio.engine", "char", 32))
  local files = sb.shared("fileio.files", "struct lb_io_file *", c.nfiles)
  local q = lio.queue { engine = engine, depth = depth, fallback = false, check = false, event = true,
    quiet = true }
  local bufs, free = io_buffers(depth, c.max_req, files[0], tid)
  ready = { q = q, bufs = bufs, free = free }
end

function thread_run(tid)
  local c = settings()
  local w = sb.worker
  local nfiles = c.nfiles
  local depth = sb.shared("fileio.depth", "uint32_t")[0]
  local files = sb.shared("fileio.files", "struct lb_io_file *", nfiles)
  local READ, WRITE, SYNC = lio.READ, lio.WRITE, c.sync_op
  local T_SYNC = luabench.stats.type(c.fsync_mode)
  local t_read, t_write, t_sync = T_READ.id, T_WRITE.id, T_SYNC.id

  local q = ready.q
  local ctx, st, done = q.ctx, q.st, q.done
  local ev_flags = q.flags
  local plain_flags = q.flags - C.LB_FIO_EVENT
  local submit, reap, inflight = C.lb_fio_submit, C.lb_fio_reap, C.lb_io_inflight
  local next_event = C.lb_event_next

  local max_req = c.max_req
  local bufs, free = ready.bufs, ready.free
  local nfree = depth
  local file_of, slot_of, op_of = {}, {}, {}
  local gen, redraw = request_generator(c, tid)
  local seq = c.mode.seq

  -- --validate: self-checking blocks, and no two I/Os on the same bytes at once.
  local validate = c.validate
  local vb = c.vblock
  local busy = validate and C.lb_fio_busy_get(sysbench.worker, "fileio.busy", c.threads * depth + 1)
  local errbuf = ffi.new("char[256]")
  local wseq = tid * 2 ^ 40

  local OPNAME = { [READ] = "read", [WRITE] = "write", [SYNC] = c.fsync_mode }
  local held_op, held_fi, held_off, held_len, held_t
  local extra, nextra = {}, 0     -- files to fsync after a write (--file-fsync-all)
  local writes_inflight = 0
  local stopping = false
  local fsync_all = c.fsync_all
  -- --file-fsync-every-io: reads too, once this thread has written (fio syncs before the next
  -- I/O whenever writes were issued and the last I/O was not a sync)
  local fsync_reads, wrote = c.fsync_every_io, false
  local reap_max = math.min(c.reap_batch, depth)
  -- --rate: an I/O's event latency counts from its intended start (queueing included), and
  -- nothing is left in flight while the thread waits for the next arrival (a sleeping thread
  -- would see its completions late): one I/O in flight per thread.
  local rate_mode = (tonumber(sb.opt.rate) or 0) > 0
  local intended, clock_ns = {}, C.lb_clock_ns
  if rate_mode then ev_flags = plain_flags end

  -- Submits one request into a free buffer; false when --validate finds its bytes busy.
  local function issue(op, fi, off, len, flags, t)
    local b = free[nfree]
    nfree = nfree - 1
    local ptr = bufs + b * max_req
    local slot = -1
    if validate and op ~= SYNC then
      slot = C.lb_fio_busy_claim(busy, fi, off, len)
      if slot < 0 then
        nfree = nfree + 1
        return false
      end
      if op == WRITE then
        for k = 0, len / vb - 1 do
          wseq = wseq + 1
          C.lb_io_block_fill(ptr + k * vb, vb, off + k * vb, wseq)
        end
      end
    end
    file_of[b], slot_of[b] = fi, slot
    op_of[b] = OPNAME[op]
    local id = op == READ and t_read or op == WRITE and t_write or t_sync
    local r = submit(st, ctx, op, files[fi], ptr, len, off, b, id, flags)
    if r < 0 then
      error(string.format("%s %s at offset %d: %s", OPNAME[op], file_path(fi), off,
        ffi.string(C.lb_io_ctx_errmsg(ctx))), 0)
    end
    if op == WRITE then writes_inflight, wrote = writes_inflight + 1, true end
    intended[b] = t
    return true
  end

  -- At a large depth, filling the queue takes long (io_submit blocks once the device's queue is
  -- full): completions are collected every 64 submissions meanwhile, so that they are counted
  -- in the second they happen and the buffers come back, not all after the end of the run.
  local poll
  local poll_every, nsub = depth > 64 and 64 or math.huge, 0

  -- Keeps the queue full: the next request (or the one held back), unless an fsync must wait
  -- for writes in flight or the run is over.
  local function fill()
    while inflight(ctx) < depth do
      if nextra > 0 then
        -- --file-fsync-all: the write has completed, so its fsync goes out at once
        issue(SYNC, extra[nextra], 0, 0, plain_flags)
        nextra = nextra - 1
      else
        local op, fi, off, len, t
        if held_op then
          op, fi, off, len, t = held_op, held_fi, held_off, held_len, held_t
        else
          if rate_mode and inflight(ctx) > 0 then return end
          t = stopping and -1 or next_event(w, -1)
          if t < 0 then
            stopping = true
            return
          end
          op, fi, off, len = gen()
        end
        held_t = t
        -- An fsync covers the writes that completed before it: let those in flight finish.
        if op == SYNC and writes_inflight > 0 then
          held_op, held_fi, held_off, held_len = op, fi, off, len
          return
        end
        if not issue(op, fi, off, len, ev_flags, rate_mode and t or nil) then
          -- --validate: another I/O is on these bytes; a random request draws again, a
          -- sequential one waits for it.
          held_op, held_fi, held_off, held_len = op, fi, off, len
          if not seq then held_op, held_fi, held_off, held_len = redraw(op) end
          if inflight(ctx) > 0 then return end
          C.lb_sleep_ns(20000)
        else
          held_op = nil
          nsub = nsub + 1
          if nsub >= poll_every then
            nsub = 0
            poll()
          end
        end
      end
    end
  end

  -- One reaped I/O: failures raise, writes may queue their fsync, reads are verified, the
  -- buffer goes back to the free stack.
  local function complete(io)
    local b = tonumber(bit.band(io.tag, 0x3ffff))
    local fi = file_of[b]
    local op = io.op
    if io.error ~= 0 or (op <= 1 and io.result_bytes ~= io.length_bytes) then
      error(io_failure(op_of[b] or "I/O", file_path(fi), io), 0)
    end
    if op == WRITE then
      writes_inflight = writes_inflight - 1
      if fsync_all then
        nextra = nextra + 1
        extra[nextra] = fi
      end
    elseif op == READ and fsync_reads and wrote then
      nextra = nextra + 1
      extra[nextra] = fi
    end
    if validate and op ~= 2 and op ~= 3 then
      if op == READ then verify_read(bufs + b * max_req, io, vb, file_path(fi), errbuf) end
      C.lb_fio_busy_release(busy, slot_of[b])
    end
    if rate_mode and intended[b] then
      C.lb_fio_event(st, clock_ns(w) - intended[b])
      intended[b] = nil
    end
    nfree = nfree + 1
    free[nfree] = b
  end

  local function reap_some(max)
    local n = reap(st, ctx, 1, max, done, -1)
    if n < 0 then error("reaping I/O: " .. ffi.string(C.lb_io_ctx_errmsg(ctx)), 0) end
    return n
  end

  poll = function()
    local n = reap(st, ctx, 0, math.min(depth, 256), done, 0)
    if n < 0 then error("reaping I/O: " .. ffi.string(C.lb_io_ctx_errmsg(ctx)), 0) end
    for i = 0, n - 1 do complete(done[i]) end
  end

  while true do
    fill()
    if inflight(ctx) == 0 then
      if stopping and nextra == 0 and not held_op then break end
    else
      for i = 0, reap_some(reap_max) - 1 do complete(done[i]) end
    end
  end

  -- sysbench fsyncs every file at the end of a write test (part of the run's time).
  if c.fsync_end and c.mode.write then
    for fi = 0, nfiles - 1 do
      issue(SYNC, fi, 0, 0, plain_flags)
      for i = 0, reap_some(depth) - 1 do
        if done[i].error ~= 0 then
          error(string.format("%s %s failed: %s", c.fsync_mode, file_path(fi), lio.strerror(done[i].error)), 0)
        end
        nfree = nfree + 1
        free[nfree] = tonumber(bit.band(done[i].tag, 0x3ffff))
      end
    end
  end
  C.lb_fio_flush(st, 1)
  q:close()
  C.lb_event_abandon(w)
  -- The last thread to finish speaks for all (a run that completed no I/O fails in the engine,
  -- as any run that completed no event: results.md 6.5).
  local finished = sb.shared("fileio.finished", "uint64_t", 1)
  if tonumber(sb.atomic_add(finished, 1)) + 1 == c.threads then fold_seq_warnings(seq_restarts(c)) end
end

-- Reports ----------------------------------------------------------------------------------------

local function first_pct()
  local p = tostring(sb.opt.percentile or "95"):match("^[^,]+") or "95"
  return tonumber(p) or 95
end

function sb.hooks.report_intermediate(stat)
  local s = stat.time_interval
  print(string.format("[ %.0fs ] reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s latency (ms,%d%%): %4.3f",
    stat.time_total, stat.bytes_read / MiB / s, stat.bytes_written / MiB / s, stat.other / s,
    floor(first_pct()), stat.latency_pct * 1e3))
end

function sb.hooks.report_text(stat)
  local s = stat.time_interval
  return string.format("\nFile operations:\n" ..
    "    reads/s:                      %4.2f\n" ..
    "    writes/s:                     %4.2f\n" ..
    "    fsyncs/s:                     %4.2f\n\n" ..
    "Throughput:\n" ..
    "    read, MiB/s:                  %4.2f\n" ..
    "    written, MiB/s:               %4.2f\n\n",
    stat.reads / s, stat.writes / s, stat.other / s, stat.bytes_read / MiB / s, stat.bytes_written / MiB / s)
end

local report = require("fileio.report")
report.setup {
  settings = settings, size_str = size_str, types = { read = T_READ, write = T_WRITE },
}
sb.hooks.report_footer = report.footer
sb.hooks.report_json = report.json
