-- luabench.io: direct file I/O for scripts, over the C engine layer (src/io) through the FFI.
--
--   local lio = luabench.io
--   local f = lio.open("data.0", "direct")                  -- flags: direct,dsync,sync,create,rdonly,random,sequential
--   local buf = lio.buffer(16384, f.mem_align)              -- aligned, zeroed, freed by the GC
--   f:pread(buf, 16384, 0)                                  -- blocking; latency recorded as "read"
--   local q = lio.queue{ engine = "io_uring", depth = 32 }  -- falls back to libaio, then psync
--   q:read(f, buf, 16384, 8192, "page read")                -- asynchronous; any name for the latency
--   local n = q:reap(1)                                     -- completions in q.done[0 .. n-1]
--
-- Every I/O is timed from submit to reap (the complete latency, fio's "lat") and recorded in the
-- run's statistics under a luabench.stats type: its own name if one is given, else "read",
-- "write", "fsync" or "fdatasync". Bytes go into the bytes_read/bytes_written counters, and
-- reads, writes and syncs into the read/write/other counters. Calls block the worker thread.
local ffi = require("ffi")
local bit = require("bit")
sysbench._cdef("luabench.cdef_io")
local C = ffi.C
local sb = sysbench
local worker = sb.worker

local M = {}
C.lb_fio_setup()

-- Misuse is raised at the script's line, naming the call and its rule (api_check.bad); I/O that
-- fails is an error naming the file and the reason (lua-api.md §2).
local api = require("luabench.api_check")
local bad = api.bad

local function whole(n)
  return type(n) == "number" and n >= 0 and n % 1 == 0
end

-- A buffer and its length, as the calls that take a pointer and a length (like memcpy) get them:
-- a pointer (luabench.io.buffer(), ffi.new) whose size cannot be known, or, where the call only
-- reads (readable), a Lua string, which may not be read past its end.
local function check_buf(call, buf, len, readable)
  if not whole(len) then bad(call, "len must be a whole number of bytes >= 0", len) end
  if readable and type(buf) == "string" then
    if len > #buf then bad(call, string.format("len must not exceed the string's %d bytes", #buf), len) end
  elseif type(buf) ~= "cdata" or (buf == nil and len ~= 0) then
    bad(call, readable and "buf must be a buffer (luabench.io.buffer()) or a string" or
      "buf must be a buffer (luabench.io.buffer())", buf)
  end
end

local function check_off(call, off)
  if not whole(off) then bad(call, "off must be a whole number of bytes >= 0", off) end
end

-- A luabench.stats type to record under: a name, a type object, false (not recorded) or nil.
local function check_stat(call, s)
  local t = type(s)
  if not (s == nil or s == false or t == "string" or (t == "table" and s.id)) then
    bad(call, "s must be a name, a luabench.stats type, false or nil", s)
  end
end

local ERRLEN = 512
local errbuf = ffi.new("char[?]", ERRLEN)
local USER_TAG = 2 ^ 48

local OP = { read = C.LB_IO_READ, write = C.LB_IO_WRITE, fsync = C.LB_IO_FSYNC,
  fdatasync = C.LB_IO_FDATASYNC }
local OP_NAME = { [0] = "read", "write", "fsync", "fdatasync" }
M.READ, M.WRITE, M.FSYNC, M.FDATASYNC = OP.read, OP.write, OP.fsync, OP.fdatasync

local FLAGS = { direct = C.LB_IO_O_DIRECT, dsync = C.LB_IO_O_DSYNC, sync = C.LB_IO_O_SYNC,
  create = C.LB_IO_O_CREATE, rdonly = C.LB_IO_O_RDONLY, readonly = C.LB_IO_O_RDONLY,
  random = C.LB_IO_O_RANDOM, sequential = C.LB_IO_O_SEQUENTIAL }

-- The statistics object of this Lua state (one per worker), created on first use.
local fst
local function stat()
  if not fst then fst = C.lb_fio_stat_new(worker) end
  return fst
end
M._stat = stat

-- luabench.stats type id for a name, a type object, false (not recorded) or nil (default name).
local type_ids = {}
local function type_id(s, default)
  if s == nil then s = default end
  if s == false then return -1 end
  local id = type_ids[s]
  if id then return id end
  if type(s) == "table" and s.id then
    id = s.id
  else
    id = sb.stats.type(tostring(s)).id
  end
  type_ids[s] = id
  return id
end
M._type_id = type_id

local function strerror(code)
  return ffi.string(C.lb_io_strerror(code))
end
function M.strerror(code)
  if type(code) ~= "number" then bad("luabench.io.strerror(code)", "code must be a number (a negative errno)", code) end
  return strerror(code)
end

-- Open flags from "direct,dsync", {"direct", "dsync"} or {direct = true, dsync = true}. call:
-- the call they were given to, for its messages.
local function flags(spec, call)
  local bits = 0
  local function add(name)
    if type(name) ~= "string" then bad(call, "a flag must be a name", name) end
    name = name:lower():gsub("^%s+", ""):gsub("%s+$", "")
    if name == "" or name == "none" then return end
    local b = FLAGS[name]
    if not b then
      api.raise(string.format("%s: unknown file open flag '%s' (use direct, dsync, sync, create, rdonly, random, sequential)",
        call, api.escape(name)))
    end
    bits = bit.bor(bits, b)
  end
  if type(spec) == "string" then
    for name in spec:gmatch("[^,]+") do add(name) end
  elseif type(spec) == "table" then
    for k, v in pairs(spec) do
      if type(k) == "number" then add(v) elseif v then add(k) end
    end
  elseif type(spec) == "number" then
    bits = spec
  elseif spec ~= nil then
    bad(call, "the flags must be a string, a list or a table", spec)
  end
  return bits
end
function M.flags(spec) return flags(spec, "luabench.io.flags(spec)") end

-- Files ------------------------------------------------------------------------------------------

local File = {}
File.__index = File
M.File = File

function M.open(path, spec)
  if type(path) ~= "string" or path == "" then bad("luabench.io.open(path [, flags])", "path must be a file name", path) end
  local bits = flags(spec, "luabench.io.open(path [, flags])")
  local out = ffi.new("struct lb_io_file *[1]")
  if C.lb_io_file_open(tostring(path), bits, out, errbuf, ERRLEN) < 0 then
    error(ffi.string(errbuf), 0)
  end
  local p = ffi.gc(out[0], C.lb_io_file_close)
  return setmetatable({
    ptr = p,
    path = tostring(path),
    size = tonumber(C.lb_io_file_size_bytes(p)),
    align = C.lb_io_file_offset_align(p),
    mem_align = C.lb_io_file_mem_align(p),
    flags = bits,
    direct = bit.band(bits, FLAGS.direct) ~= 0,
    blockdev = C.lb_io_file_is_blockdev(p) ~= 0,
  }, File)
end

-- What a file or queue method was called on: an open object of its kind, else an error naming
-- the script's line (the C layer would be handed a NULL or foreign pointer).
local raise, is_a = require("luabench.api_check").raise, require("luabench.api_check").is_a
local function file_of(f, what)
  if getmetatable(f) ~= File and not is_a(f, File) then
    raise(string.format("io: %s needs a file from luabench.io.open(), got %s", what, type(f)))
  end
  if f.ptr == nil then raise(string.format("io: %s on a closed file (%s)", what, f.path)) end
  return f
end

function File:close()
  if getmetatable(self) ~= File and not is_a(self, File) then file_of(self, "close()") end
  if self.ptr ~= nil then
    local p = self.ptr
    self.ptr = nil
    ffi.gc(p, nil)
    C.lb_io_file_close(p)
  end
end

-- nil if an I/O of len bytes at off from buf is allowed on this file, else the reason.
function File:check_align(buf, len, off)
  file_of(self, "check_align()")
  if type(len) ~= "number" or type(off) ~= "number" then raise("io: check_align(buf, len, off) needs a length and an offset") end
  if type(buf) ~= "cdata" then bad("f:check_align(buf, len, off)", "buf must be a buffer (luabench.io.buffer())", buf) end
  if C.lb_io_file_check_align(self.ptr, buf, len, off, errbuf, ERRLEN) < 0 then
    return ffi.string(errbuf)
  end
end

-- Aligned buffers ------------------------------------------------------------------------------

-- The alignment is a uint32_t in C: -2^31 would become a 2 GiB alignment there, so both are
-- checked here first.
function M.buffer(size, align)
  align = align or 4096
  local n, a = tonumber(size), tonumber(align)
  if not n or n < 0 or n % 1 ~= 0 or not a or a < 1 or a > 2 ^ 30 or a % 1 ~= 0 then
    raise(string.format("io.buffer(size, align): a size in bytes and an alignment of 1 B to 1 GiB (got %s, %s)",
      tostring(size), tostring(align)))
  end
  local p = C.lb_io_buf_alloc(size, align)
  if p == nil then
    error(string.format("cannot allocate an I/O buffer of %d bytes aligned to %d", n, a), 2)
  end
  return ffi.gc(ffi.cast("uint8_t *", p), C.lb_io_buf_free)
end

-- Engines and queues -----------------------------------------------------------------------------

function M.engines()
  local t = {}
  for i = 0, C.lb_io_engine_count() - 1 do
    local name = ffi.string(C.lb_io_engine_name(i))
    if C.lb_io_engine_flags(name) >= 0 then t[#t + 1] = name end
  end
  return t
end

-- What engine `name` can do (when it is not built in: the engine standing in for it), or nil
-- and the reason: queue (keeps several I/Os in flight), buffered_queue (also on files without
-- O_DIRECT), direct (honours O_DIRECT), sized_files (maps the files: they need their size
-- before the run, it cannot extend them), moves_data (false for null).
function M.capabilities(name)
  if type(name) ~= "string" then bad("luabench.io.capabilities(engine)", "engine must be a name (\"io_uring\")", name) end
  local f = tonumber(C.lb_io_engine_flags(name))
  if f == C.LB_IO_E_UNSUPPORTED and C.lb_io_engine_fallback(name) ~= nil then
    return M.capabilities(ffi.string(C.lb_io_engine_fallback(name)))
  end
  if f < 0 then return nil, ffi.string(C.lb_io_strerror(f)) end
  local function has(flag) return bit.band(f, flag) ~= 0 end
  return {
    queue = has(C.LB_IO_F_ASYNC),
    buffered_queue = has(C.LB_IO_F_ASYNC) and not has(C.LB_IO_F_NEEDS_DIRECT),
    direct = not has(C.LB_IO_F_MEMMAP),
    sized_files = has(C.LB_IO_F_MEMMAP),
    moves_data = not has(C.LB_IO_F_FAKE),
  }
end

-- The most I/Os one queue of engine `name` holds here, and where that limit comes from
-- (io_uring: 32768, the kernel's; libaio: what /proc/sys/fs/aio-max-nr leaves).
function M.max_depth(name)
  if type(name) ~= "string" then bad("luabench.io.max_depth(engine)", "engine must be a name (\"io_uring\")", name) end
  local why = ffi.new("char[160]")
  local n = tonumber(C.lb_io_engine_max_depth(name, why, 160))
  return n, ffi.string(why)
end

-- A context of engine `name`, or, when fallback is not false and it is not available here, of
-- the engine the I/O layer names to stand in for it (io_uring -> libaio -> psync). Returns the
-- context, the engine used, and the fallback message (nil when there was none).
local function new_ctx(name, depth, fallback)
  local out = ffi.new("struct lb_io_ctx *[1]")
  local e, why = name, nil
  while true do
    local r = C.lb_io_ctx_new(e, depth, out, errbuf, ERRLEN)
    if r == 0 then
      local msg = why and string.format("%s; using %s instead", why, e) or nil
      return out[0], e, msg
    end
    local reason = ffi.string(errbuf)
    local next_engine = fallback ~= false and r == C.LB_IO_E_UNSUPPORTED and C.lb_io_engine_fallback(e)
    if not next_engine or next_engine == nil then
      error(why and (why .. "; " .. reason) or reason, 0)
    end
    why = why or string.format("I/O engine %s is not available here (%s)", name, reason)
    e = ffi.string(next_engine)
  end
end

local warned
local function warn_once(msg)
  if msg and not warned then
    warned = true
    local flag = sb.shared("luabench.io.fallback_warned", "int")
    if flag[0] == 0 then
      flag[0] = 1
      io.stderr:write("WARNING: ", msg, "\n")
    end
  end
end

-- The blocking calls of this state go through one psync context.
local sync_ctx
local function sctx()
  if not sync_ctx then
    local ctx = new_ctx("psync", 1, false)
    sync_ctx = ffi.gc(ctx, C.lb_io_ctx_free)
  end
  return sync_ctx
end

local function fail(op, f, off, len, code)
  if op >= 2 then
    return string.format("%s %s: %s", OP_NAME[op], f.path, strerror(code))
  end
  return string.format("%s of %d bytes at offset %d of %s: %s", OP_NAME[op], tonumber(len),
    tonumber(off), f.path, strerror(code))
end

local BLOCKING = { [0] = "f:pread(buf, len, off [, s])", "f:pwrite(buf, len, off [, s])", "f:fsync([s])", "f:fdatasync([s])" }
local function blocking(f, op, buf, len, off, s)
  file_of(f, OP_NAME[op] .. "()")
  if op <= 1 then
    if buf == nil and len ~= 0 then raise(string.format("io: %s(): no buffer (nil)", OP_NAME[op])) end
    check_buf(BLOCKING[op], buf, len)
    check_off(BLOCKING[op], off)
  end
  check_stat(BLOCKING[op], s)
  local r = C.lb_fio_sync(stat(), sctx(), op, f.ptr, buf, len or 0, off or 0, type_id(s, OP_NAME[op]), 0)
  if r < 0 then error(fail(op, f, off or 0, len or 0, r), 0) end
  return tonumber(r)
end

-- Blocking I/O: bytes transferred (a short transfer is returned, and counted as an error in
-- the statistics); an error raises. `s`: name or luabench.stats type to record under (false:
-- not recorded).
function File:pread(buf, len, off, s) return blocking(self, OP.read, buf, len, off, s) end
function File:pwrite(buf, len, off, s) return blocking(self, OP.write, buf, len, off, s) end
function File:fsync(s) return blocking(self, OP.fsync, nil, 0, 0, s) end
function File:fdatasync(s) return blocking(self, OP.fdatasync, nil, 0, 0, s) end

local Queue = {}
Queue.__index = Queue
M.Queue = Queue

-- opts: engine ("io_uring", "libaio", "psync", "mmap", "null"; default "io_uring"), depth (I/Os
-- in flight, default 1), fallback (default true: io_uring -> libaio -> psync with a warning),
-- batch (default false: each submit is committed at once; true: reap() commits the batch),
-- check (default true: reap() raises on a failed or short I/O), event (internal: count each
-- I/O as an engine event, as the fileio workload does).
local QUEUE = "luabench.io.queue([{engine =, depth =, fallback =, batch =, check =}])"
function M.queue(opts)
  if opts == nil then
    opts = {}
  elseif type(opts) ~= "table" then
    bad(QUEUE, "the options must be a table", opts)
  end
  local depth = tonumber(opts.depth) or 1
  if depth < 1 or depth > 65536 or depth % 1 ~= 0 then
    api.raise(QUEUE .. ": depth must be a whole number in 1..65536 (got " .. api.show(opts.depth) .. ")")
  end
  local name = opts.engine or "io_uring"
  if type(name) ~= "string" then bad(QUEUE, "engine must be a name (\"io_uring\")", name) end
  local ctx, engine, msg = new_ctx(name, depth, opts.fallback)
  if not opts.quiet then warn_once(msg) end
  ctx = ffi.gc(ctx, C.lb_io_ctx_free)
  local async = M.capabilities(engine).queue
  local flags = 0
  if async then flags = flags + C.LB_FIO_PARTS end
  if opts.event then flags = flags + C.LB_FIO_EVENT end
  if opts.batch then flags = flags + C.LB_FIO_BATCH end
  local q = setmetatable({
    ctx = ctx, engine = engine, requested = name, fallback = msg, depth = depth, async = async,
    flags = flags, check = opts.check ~= false, st = stat(),
    done = ffi.new("struct lb_io *[?]", depth), n = 0,
  }, Queue)
  C.lb_fio_track(q.st, ctx)
  return q
end

-- Would engine e lose its asynchrony on file f (libaio without O_DIRECT)? The reason, or nil.
function M.degraded(engine, f)
  if type(engine) ~= "string" then bad("luabench.io.degraded(engine, f)", "engine must be a name (\"libaio\")", engine) end
  file_of(f, "degraded()")
  if C.lb_io_file_degraded(engine, f.ptr, errbuf, ERRLEN) == 1 then return ffi.string(errbuf) end
end

local function queue_of(q, what)
  if getmetatable(q) ~= Queue and not is_a(q, Queue) then
    raise(string.format("io: %s needs a queue from luabench.io.queue() (q:%s), got %s", what, what, type(q)))
  end
  if q.ctx == nil then raise(string.format("io: %s on a closed queue", what)) end
  return q
end

local SUBMIT = { [0] = "q:read(f, buf, len, off [, s [, tag]])", "q:write(f, buf, len, off [, s [, tag]])",
  "q:fsync(f [, s [, tag]])", "q:fdatasync(f [, s [, tag]])" }
function Queue:submit(op, f, buf, len, off, s, tag)
  queue_of(self, "submit()")
  if type(op) ~= "number" or not OP_NAME[op] then raise("io: submit() needs an operation (0..3)") end
  file_of(f, "submit()")
  if op <= 1 then
    if buf == nil and len ~= 0 then raise(string.format("io: %s(): no buffer (nil)", OP_NAME[op])) end
    check_buf(SUBMIT[op], buf, len)
    check_off(SUBMIT[op], off)
  end
  check_stat(SUBMIT[op], s)
  if tag ~= nil and not (whole(tag) and tag < USER_TAG) then bad(SUBMIT[op], "tag must be a whole number 0..2^48-1", tag) end
  local r = C.lb_fio_submit(self.st, self.ctx, op, f.ptr, buf, len or 0, off or 0, tag or 0,
    type_id(s, OP_NAME[op]), self.flags)
  if r < 0 then
    if r == C.LB_IO_E_FULL then
      error(string.format("queue full: %d I/Os in flight at depth %d (reap first)", self:inflight(), self.depth), 2)
    end
    error(ffi.string(C.lb_io_ctx_errmsg(self.ctx)), 0)
  end
end

function Queue:read(f, buf, len, off, s, tag) return Queue.submit(self, OP.read, f, buf, len, off, s, tag) end
function Queue:write(f, buf, len, off, s, tag) return Queue.submit(self, OP.write, f, buf, len, off, s, tag) end
function Queue:fsync(f, s, tag) return Queue.submit(self, OP.fsync, f, nil, 0, 0, s, tag) end
function Queue:fdatasync(f, s, tag) return Queue.submit(self, OP.fdatasync, f, nil, 0, 0, s, tag) end

-- Waits for at least `min` completions (default 1; 0 polls; clamped to what is in flight) and
-- collects up to `max` (default depth) within `timeout` seconds (default: no limit). Returns n;
-- the I/Os are q.done[0] .. q.done[n-1] (struct lb_io *: error, result_bytes, offset_bytes,
-- length_bytes, op, buf) and q:tag(i), valid until the next submit.
local REAP = "q:reap([min [, max [, timeout]]])"
function Queue:reap(min, max, timeout)
  queue_of(self, "reap()")
  if min ~= nil and not whole(min) then bad(REAP, "min must be a whole number >= 0", min) end
  if max ~= nil and not (whole(max) and max >= 1) then bad(REAP, "max must be a whole number >= 1", max) end
  if timeout ~= nil and not (type(timeout) == "number" and timeout >= 0) then
    bad(REAP, "timeout must be a number of seconds >= 0", timeout)
  end
  local n = C.lb_fio_reap(self.st, self.ctx, min or 1, max or self.depth, self.done,
    timeout and timeout * 1e9 or -1)
  if n < 0 then error(ffi.string(C.lb_io_ctx_errmsg(self.ctx)), 0) end
  self.n = n
  if self.check then
    for i = 0, n - 1 do
      local io = self.done[i]
      if io.error ~= 0 then
        error(string.format("%s %s at offset %d: %s", OP_NAME[io.op],
          ffi.string(C.lb_io_file_path(io.file)), tonumber(io.offset_bytes), strerror(io.error)), 0)
      elseif io.op <= 1 and io.result_bytes ~= io.length_bytes then
        error(string.format("short %s of %s at offset %d: %d of %d bytes", OP_NAME[io.op],
          ffi.string(C.lb_io_file_path(io.file)), tonumber(io.offset_bytes),
          tonumber(io.result_bytes), tonumber(io.length_bytes)), 0)
      end
    end
  end
  return n
end

function Queue:tag(i)
  queue_of(self, "tag()")
  if type(i) ~= "number" or i < 0 or i >= self.n or i % 1 ~= 0 then
    raise(string.format("io: tag(%s): not an index of the last reap (0..%d)", tostring(i), self.n - 1))
  end
  return tonumber(bit.band(self.done[i].tag, 0xffffffffffffULL))
end

function Queue:inflight() return C.lb_io_inflight(queue_of(self, "inflight()").ctx) end
function Queue:space()
  local q = queue_of(self, "space()")
  return q.depth - C.lb_io_inflight(q.ctx)
end

-- Reaps until nothing is in flight; returns how many completed.
function Queue:drain()
  queue_of(self, "drain()")
  local total = 0
  while C.lb_io_inflight(self.ctx) > 0 do total = total + self:reap(1) end
  return total
end

-- Time-weighted average of I/Os in flight since the queue was created (or the statistics
-- window started).
function Queue:avg_depth() return C.lb_io_avg_depth(queue_of(self, "avg_depth()").ctx) end

function Queue:close()
  if getmetatable(self) ~= Queue and not is_a(self, Queue) then queue_of(self, "close()") end
  if self.ctx then
    self:drain()
    C.lb_fio_untrack(self.st, self.ctx)
    local ctx = self.ctx
    self.ctx = nil
    ffi.gc(ctx, nil)
    C.lb_io_ctx_free(ctx)
  end
end

-- File preparation ---------------------------------------------------------------------------

local PREP_STATE = { "created", "reused", "extended", "truncated" }

-- Makes path a regular file of exactly size bytes, all really written (see iofile.h).
-- opts: direct (write with O_DIRECT), block (bytes per write, default 1 MiB), check_block
-- (write self-checking blocks of this size for block_verify), keep_longer (a longer file is
-- kept, not cut to size: "reused", or "extended" from its first hole), start = function(state,
-- bytes_to_write) called before the first write, progress = function(done_bytes, total_bytes,
-- written_bytes, seconds) called about every `every` seconds (default 2).
-- Returns the state ("created", "reused", "extended" or "truncated"), bytes written, seconds.
local PREPARE = "luabench.io.prepare(path, size [, opts])"
function M.prepare(path, size, opts)
  if type(path) ~= "string" or path == "" then bad(PREPARE, "path must be a file name", path) end
  local n = tonumber(size)
  if not n or n < 0 or n % 1 ~= 0 then
    raise("io.prepare(path, size): the size is a number of bytes (got " .. tostring(size) .. ")")
  end
  if opts == nil then
    opts = {}
  elseif type(opts) ~= "table" then
    bad(PREPARE, "opts must be a table", opts)
  end
  for _, k in ipairs({ "block", "check_block", "every" }) do
    if opts[k] ~= nil and not (type(opts[k]) == "number" and opts[k] >= 0) then bad(PREPARE, k .. " must be a number >= 0", opts[k]) end
  end
  for _, k in ipairs({ "start", "progress" }) do
    if opts[k] ~= nil and type(opts[k]) ~= "function" then bad(PREPARE, k .. " must be a function", opts[k]) end
  end
  local out = ffi.new("struct lb_io_prepare *[1]")
  local flags = bit.bor(opts.direct and C.LB_IO_O_DIRECT or 0, opts.keep_longer and C.LB_IO_PREP_KEEP_LONGER or 0)
  if C.lb_io_prepare_new(tostring(path), size, flags, opts.block or 0,
      opts.check_block or 0, out, errbuf, ERRLEN) < 0 then
    error(ffi.string(errbuf), 0)
  end
  local p = ffi.gc(out[0], C.lb_io_prepare_free)
  local state = PREP_STATE[C.lb_io_prepare_state(p)] or "created"
  local to_write = tonumber(C.lb_io_prepare_to_write_bytes(p))
  if opts.start then opts.start(state, to_write) end
  local t0 = sb.time()
  local first = tonumber(C.lb_io_prepare_total_bytes(p)) - to_write
  local every, last = opts.every or 2, t0
  while C.lb_io_prepare_done(p) == 0 do
    local r = C.lb_io_prepare_step(p, 64 * 1048576)
    if r < 0 then
      local msg = ffi.string(C.lb_io_prepare_errmsg(p))
      ffi.gc(p, nil)
      C.lb_io_prepare_free(p)
      error(msg, 0)
    end
    local now = sb.time()
    if opts.progress and now - last >= every then
      last = now
      opts.progress(tonumber(r), size, tonumber(r) - first, now - t0)
    end
  end
  ffi.gc(p, nil)
  C.lb_io_prepare_free(p)
  return state, to_write, sb.time() - t0
end

-- Checksums ----------------------------------------------------------------------------------

M.BLOCK_HEADER = 32

-- The buffer functions take a pointer and a length, like memcpy: the length cannot be checked
-- against a pointer, but no buffer at all (nil, NULL) can, and a string's length can.
local function some_buffer(buf, len, what, readable)
  if buf == nil and len ~= 0 then raise("io." .. what .. ": no buffer (nil) for " .. tostring(len) .. " bytes") end
  check_buf("luabench.io." .. what .. "(buf, len, ...)", buf, len, readable)
end

local function check_seed(what, name, v)
  if v ~= nil and type(v) ~= "number" and type(v) ~= "cdata" then
    bad("luabench.io." .. what .. "(buf, len, ...)", name .. " must be a number", v)
  end
end

function M.crc32c(buf, len, crc)
  if type(buf) == "string" then len = len or #buf end
  some_buffer(buf, len, "crc32c", true)
  check_seed("crc32c", "crc", crc)
  return C.lb_io_crc32c(crc or 0, buf, len)
end

-- Writes a self-describing block for offset `off` into buf (header with CRC32C, offset and seq).
function M.block_fill(buf, len, off, seq)
  some_buffer(buf, len, "block_fill")
  check_off("luabench.io.block_fill(buf, len, off [, seq])", off)
  check_seed("block_fill", "seq", seq)
  if C.lb_io_block_fill(buf, len, off, seq or 0) < 0 then
    error(string.format("cannot make a checked block of %d bytes", len), 2)
  end
end

-- true, seq if the block read from `off` is intact; false, message, kind ("torn" or
-- "misplaced") if not.
function M.block_verify(buf, len, off)
  some_buffer(buf, len, "block_verify", true)
  check_off("luabench.io.block_verify(buf, len, off)", off)
  local seq = ffi.new("uint64_t[1]")
  local r = C.lb_io_block_verify(buf, len, off, seq, errbuf, ERRLEN)
  if r == 0 then return true, seq[0] end
  return false, ffi.string(errbuf), r == C.LB_IO_E_MISPLACED and "misplaced" or "torn"
end

function M.pattern_fill(buf, len, off, seed)
  some_buffer(buf, len, "pattern_fill")
  check_off("luabench.io.pattern_fill(buf, len, off [, seed])", off)
  check_seed("pattern_fill", "seed", seed)
  C.lb_io_pattern_fill(buf, len, off, seed or 0)
end

-- Index (0-based) of the first byte that differs from the pattern, or nil.
function M.pattern_check(buf, len, off, seed)
  some_buffer(buf, len, "pattern_check", true)
  check_off("luabench.io.pattern_check(buf, len, off [, seed])", off)
  check_seed("pattern_check", "seed", seed)
  local r = C.lb_io_pattern_check(buf, len, off, seed or 0)
  if r >= 0 then return tonumber(r) end
end

return M
