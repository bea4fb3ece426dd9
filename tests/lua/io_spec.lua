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
    assert.is_truthy(err:find("unknown file open flag 'direkt' (use direct, dsync, sync, create, rdonly)", 1, true), err)
    assert.are.equal(lio.flags("direct"), lio.flags(lio.flags("direct")), "bits pass through")
    ok, err = pcall(lio.flags, true)
    assert.is_truthy(not ok and err:find("file open flags must be a string, a list or a table", 1, true), err)
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
    assert.is_truthy(not ok and err:find("queue depth must be an integer in 1..65536", 1, true), err)
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
end)
