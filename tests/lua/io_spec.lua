-- luabench.io against real files in a temporary directory, with the null and psync engines:
-- argument checks, errors, buffers, queues, preparation and checksums.
local h = require("helpers")
local lio = luabench.io
local ffi = require("ffi")

local dir = h.tmpdir() .. "/io_spec"
os.execute("mkdir -p " .. h.q(dir))

local function size_of(path)
  local f = io.open(path, "rb")
  local n = f:seek("end")
  f:close()
  return n
end

describe("luabench.io", function()
  it("flags: names and lists, and one line for a bad one", function()
    assert.are.equal(lio.flags("direct,dsync"), lio.flags({ "dsync", "direct" }))
    assert.are.equal(0, lio.flags(""))
    assert.are_not.equal(lio.flags("direct"), lio.flags("dsync"))
    local ok, err = pcall(lio.flags, "direkt")
    assert.is_false(ok)
    assert.is_truthy(err:find("unknown file open flag 'direkt' (use direct, dsync, sync, create, rdonly, random, sequential)", 1, true), err)
    assert.are.equal(lio.flags("direct"), lio.flags(lio.flags("direct")), "bits pass through")
    ok, err = pcall(lio.flags, true)
    assert.is_truthy(not ok and err:find("io_spec%.lua:%d+: luabench%.io%.flags%(spec%): the flags must be a string, a list or a table %(got true%)$"), err)
  end)

  it("open: a missing file is one line naming it", function()
    local ok, err = pcall(lio.open, dir .. "/missing.dat")
    assert.is_false(ok)
    assert.is_truthy(err:find(dir .. "/missing.dat", 1, true) and not err:find("\n"), err)
  end)

  it("buffers are aligned and zeroed", function()
    for _, align in ipairs({ 512, 4096, 65536 }) do
      local b = lio.buffer(12345, align)
      assert.are.equal(0, tonumber(ffi.cast("uintptr_t", b)) % align)
      for i = 0, 12344, 997 do assert.are.equal(0, b[i]) end
    end
  end)

  it("prepare makes a file of exactly the size, then reuses, extends or truncates it", function()
    local path = dir .. "/prep.dat"
    os.remove(path)
    local state, written = lio.prepare(path, 3 * 1048576 + 4096)
    assert.are.equal("created", state)
    assert.are.equal(3 * 1048576 + 4096, written)
    assert.are.equal(3 * 1048576 + 4096, size_of(path))
    assert.are.equal("reused", (lio.prepare(path, 3 * 1048576 + 4096)))
    state, written = lio.prepare(path, 4 * 1048576)
    assert.are.equal("extended", state)
    assert.are.equal(1048576 - 4096, written)
    assert.are.equal("truncated", (lio.prepare(path, 1048576)))
    assert.are.equal(1048576, size_of(path))
    -- keep_longer: a longer file stays as it is (fileio, as sysbench's binary)
    state, written = lio.prepare(path, 65536, { keep_longer = true })
    assert.are.equal("reused", state)
    assert.are.equal(0, written)
    assert.are.equal(1048576, size_of(path))
  end)

  it("blocking I/O moves the bytes and counts them", function()
    local path = dir .. "/rw.dat"
    lio.prepare(path, 65536)
    local f = lio.open(path)
    local buf = lio.buffer(8192, 4096)
    lio.pattern_fill(buf, 8192, 4096, 9)
    assert.are.equal(8192, f:pwrite(buf, 8192, 4096))
    f:fsync()
    local back = lio.buffer(8192, 4096)
    assert.are.equal(8192, f:pread(back, 8192, 4096))
    assert.is_nil(lio.pattern_check(back, 8192, 4096, 9))
    back[100] = back[100] + 1
    assert.are.equal(100, lio.pattern_check(back, 8192, 4096, 9))
    assert.are.equal(0, f:pread(back, 4096, 65536), "reading at the end gives 0 bytes")
    f:close()
  end)

  it("queues check their depth and refuse a submit beyond it", function()
    local ok, err = pcall(lio.queue, { engine = "null", depth = 0 })
    assert.is_truthy(not ok and err:find("depth must be a whole number in 1..65536 (got 0)", 1, true), err)
    ok, err = pcall(lio.queue, { engine = "nosuch" })
    assert.is_truthy(not ok and err:find("unknown I/O engine 'nosuch'", 1, true), err)
    local path = dir .. "/q.dat"
    lio.prepare(path, 65536)
    local f = lio.open(path)
    local buf = lio.buffer(4096, 4096)
    local q = lio.queue { engine = "null", depth = 2 }
    assert.are.equal("null", q.engine)
    q:read(f, buf, 4096, 0, false, 1)
    q:read(f, buf, 4096, 4096, false, 2)
    assert.are.equal(2, q:inflight())
    ok, err = pcall(q.read, q, f, buf, 4096, 8192, false, 3)
    assert.is_truthy(not ok and err:find("queue full: 2 I/Os in flight at depth 2 (reap first)", 1, true), err)
    local tags = {}
    local n = q:drain()
    assert.are.equal(2, n)
    assert.are.equal(0, q:inflight())
    assert.are.equal(2, q:space())
    q:close()
    f:close()
  end)

  it("psync queue: tags come back with their I/Os", function()
    local path = dir .. "/tags.dat"
    lio.prepare(path, 65536)
    local f = lio.open(path)
    local buf = lio.buffer(4096, 4096)
    local q = lio.queue { engine = "psync", depth = 1 }
    q:read(f, buf, 4096, 8192, false, 77)
    assert.are.equal(1, q:reap(1))
    assert.are.equal(77, q:tag(0))
    assert.are.equal(8192, tonumber(q.done[0].offset_bytes))
    q:close()
    f:close()
  end)

  it("CRC32C and self-checking blocks", function()
    assert.are.equal(0xE3069283, tonumber(lio.crc32c("123456789")))
    local b = lio.buffer(4096, 4096)
    lio.block_fill(b, 4096, 8192, 5)
    local ok, seq = lio.block_verify(b, 4096, 8192)
    assert.is_true(ok)
    assert.are.equal(5, tonumber(seq))
    local good, msg, kind = lio.block_verify(b, 4096, 12288)
    assert.is_false(good)
    assert.are.equal("misplaced", kind, msg)
    b[2000] = b[2000] + 1
    good, msg, kind = lio.block_verify(b, 4096, 8192)
    assert.is_false(good)
    assert.are.equal("torn", kind, msg)
    assert.is_false(pcall(lio.block_fill, b, 16, 0, 1), "too small for a header")
  end)
  it("flags: case and spaces do not matter, none and false add nothing, readonly is rdonly", function()
    assert.are.equal(lio.flags("direct,rdonly"), lio.flags(" Direct , READONLY "))
    assert.are.equal(lio.flags("direct"), lio.flags({ direct = true, dsync = false }))
    assert.are.equal(0, lio.flags("none"))
    assert.are.equal(0, lio.flags(nil))
    assert.are.equal(0, lio.flags({}))
    local ok, err = pcall(lio.flags, { "direct", "fast" })
    assert.is_truthy(not ok and err:find("unknown file open flag 'fast'", 1, true), err)
  end)

  it("open with create makes an empty file; a closed file fails its I/O in one line", function()
    local path = dir .. "/created.dat"
    os.remove(path)
    local f = lio.open(path, "create")
    assert.are.equal(0, f.size)
    assert.are.equal(path, f.path)
    assert.is_false(f.direct)
    assert.is_false(f.blockdev)
    assert.are.equal(0, size_of(path))
    f:close()
    f:close() -- twice is harmless
    local buf = lio.buffer(4096)
    local ok, err = pcall(f.pread, f, buf, 4096, 0)
    assert.is_false(ok)
    assert.are.equal("io: read() on a closed file (" .. path .. ")", (err:gsub("^.-io_spec%.lua:%d+: ", "")))
  end)

  it("blocking I/O: a short read returns what it got, a refused write raises naming it", function()
    local path = dir .. "/short.dat"
    lio.prepare(path, 8192)
    local buf = lio.buffer(4096)
    local f = lio.open(path, "rdonly")
    assert.are.equal(2048, f:pread(buf, 4096, 6144))
    local ok, err = pcall(f.pwrite, f, buf, 4096, 0)
    assert.is_false(ok)
    assert.are.equal("write of 4096 bytes at offset 0 of " .. path .. ": Bad file descriptor", err)
    f:close()
  end)

  it("queues: reap raises on a failed or short I/O, unless check is false", function()
    local path = dir .. "/reap.dat"
    lio.prepare(path, 8192)
    local buf = lio.buffer(4096)
    local f = lio.open(path, "rdonly")
    local q = lio.queue { engine = "psync" }
    q:write(f, buf, 4096, 0)
    local ok, err = pcall(q.reap, q, 1)
    assert.are.equal("write " .. path .. " at offset 0: Bad file descriptor", not ok and err)
    q:read(f, buf, 4096, 6144)
    ok, err = pcall(q.reap, q, 1)
    assert.are.equal("short read of " .. path .. " at offset 6144: 2048 of 4096 bytes", not ok and err)
    q:close()
    local lax = lio.queue { engine = "psync", check = false }
    lax:read(f, buf, 4096, 6144, "short reads", 5)
    assert.are.equal(1, lax:reap(1))
    assert.are.equal(2048, tonumber(lax.done[0].result_bytes))
    assert.are.equal(4096, tonumber(lax.done[0].length_bytes))
    assert.are.equal(5, lax:tag(0))
    lax:write(f, buf, 4096, 0)
    assert.are.equal(1, lax:reap(1))
    assert.are_not.equal(0, lax.done[0].error)
    assert.are.equal("number", type(lax:avg_depth()))
    lax:close()
    lax:close()
    f:close()
  end)

  it("engines and what they can do", function()
    local names = {}
    for _, e in ipairs(lio.engines()) do names[e] = true end
    assert.is_true(names.psync and names.null and names.mmap, table.concat(lio.engines(), ","))
    local psync, null, mmap = lio.capabilities("psync"), lio.capabilities("null"), lio.capabilities("mmap")
    assert.is_false(psync.queue)
    assert.is_true(psync.moves_data)
    assert.is_true(psync.direct)
    assert.is_false(psync.sized_files)
    assert.is_false(null.moves_data)
    assert.is_true(mmap.sized_files)
    assert.is_false(mmap.direct)
    local none, why = lio.capabilities("nosuch")
    assert.is_nil(none)
    assert.are.equal("unknown I/O engine", why)
  end)

  it("libaio without O_DIRECT is degraded, and says why; psync is not", function()
    local path = dir .. "/degraded.dat"
    lio.prepare(path, 4096)
    local f = lio.open(path)
    local why = lio.degraded("libaio", f)
    assert.is_truthy(why and why:find("libaio on " .. path .. " without O_DIRECT", 1, true), why)
    assert.is_nil(lio.degraded("psync", f))
    f:close()
  end)

  it("buffers and preparation refuse the impossible in one line", function()
    local ok, err = pcall(lio.buffer, 4096, 3)
    assert.are.equal("cannot allocate an I/O buffer of 4096 bytes aligned to 3", not ok and err)
    ok, err = pcall(lio.prepare, dir .. "/nodir/x.dat", 4096)
    assert.are.equal("prepare " .. dir .. "/nodir/x.dat: directory " .. dir .. "/nodir does not exist", not ok and err)
  end)

  it("prepare reports its start and progress", function()
    local path = dir .. "/progress.dat"
    os.remove(path)
    local started, calls = nil, {}
    local state, written = lio.prepare(path, 2 * 1048576, {
      block = 65536, every = 0,
      start = function(st, bytes) started = { st, bytes } end,
      progress = function(done, total, wrote, s) calls[#calls + 1] = { done, total, wrote, s } end,
    })
    assert.are.equal("created", state)
    assert.are.same({ "created", 2 * 1048576 }, started)
    assert.is_true(#calls >= 1)
    local last = calls[#calls]
    assert.are.equal(2 * 1048576, last[1])
    assert.are.equal(2 * 1048576, last[2])
    assert.are.equal(2 * 1048576, last[3])
    assert.is_true(last[4] >= 0)
    assert.are.equal(2 * 1048576, written)
  end)

  it("CRC32C continues from a previous value", function()
    assert.are.equal(tonumber(lio.crc32c("123456789")), tonumber(lio.crc32c("56789", nil, lio.crc32c("1234"))))
    assert.are.equal(tonumber(lio.crc32c("1234")), tonumber(lio.crc32c("123456789", 4)))
    assert.are.equal(0, tonumber(lio.crc32c("")))
  end)
end)
