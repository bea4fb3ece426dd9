-- fileio and luabench.io: real files in a temporary directory (O_DIRECT where the filesystem
-- takes it). Written bytes are checked on disk afterwards with self-checking blocks; counts in
-- the reports are checked against what the options imply; bad input must give one clear line.
local h = require("helpers")
local lio = luabench.io

local dir = h.tmpdir() .. "/fileio"
os.execute("mkdir -p " .. h.q(dir))

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("*a")
  p:close()
  return out
end

-- The output and the exit status of a shell command.
local function sh_rc(cmd)
  local out = sh(cmd .. "; echo \"::rc=$?\"")
  local rc = tonumber(out:match("::rc=(%d+)%s*$"))
  return out:gsub("::rc=%d+%s*$", ""), rc
end

local function fileio(args, opts)
  return h.run("fileio --file-dir=" .. h.q(dir) .. " " .. args, opts)
end

local function ok_run(args)
  local out, err, rc = fileio(args)
  assert.are.equal(0, rc, err .. out)
  return out, err
end

local function json_run(args)
  local out, err, rc = fileio(args .. " --format=json run")
  assert.are.equal(0, rc, err)
  return h.json(out), err
end

local function size_of(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

-- Checks every `block`-byte block of path (up to `len` bytes) with block_verify; returns the
-- number of blocks and a table of the seq numbers found.
local function verify_file(path, block, len)
  local f = lio.open(path)
  len = len or f.size
  local buf = lio.buffer(block)
  local seqs, n = {}, 0
  for off = 0, len - block, block do
    assert.are.equal(block, f:pread(buf, block, off, false))
    local ok, seq, kind = lio.block_verify(buf, block, off)
    assert.is_true(ok, string.format("%s block at %d: %s (%s)", path, off, tostring(seq), tostring(kind)))
    seqs[#seqs + 1] = tonumber(seq)
    n = n + 1
  end
  f:close()
  return n, seqs
end

-- One FATAL line on stderr (warnings aside), no report on stdout.
local function one_error(out, err, rc, pattern)
  assert.are.equal(1, rc, out .. err)
  local lines = {}
  for l in err:gmatch("[^\n]+") do
    if not l:match("^WARNING") then lines[#lines + 1] = l end
  end
  assert.are.equal(1, #lines, "one line expected, got:\n" .. err)
  assert.is_truthy(lines[1]:find(pattern, 1, true), "expected '" .. pattern .. "' in: " .. lines[1])
  assert.is_falsy(out:find("General statistics", 1, true))
end

-- sysbench 1.0.20's request sequence (src/tests/fileio/sb_fileio.c semantics, one thread):
-- returns reads, writes and fsyncs for `events` requests.
local function sysbench_sequence(mode, events, nfiles, freq, ratio)
  local reads, writes, fsyncs, performed, dirty, f = 0, 0, 0, 0, false, 0
  for _ = 1, events do
    local write
    if mode == "rndrw" then write = (reads + 1) / (writes + 1) >= ratio
    else write = mode == "rndwr" or mode == "seqwr" or mode == "seqrewr" end
    if freq > 0 and dirty and performed % freq == 0 then
      fsyncs = fsyncs + 1
      f = f + 1
      if f == nfiles then f, dirty = 0, false end
    else
      performed = performed + 1
      if write then writes, dirty = writes + 1, true else reads = reads + 1 end
    end
  end
  return reads, writes, fsyncs
end

local ENGINES = { "sync", "async", "io_uring", "mmap" }
local SMALL = "--file-num=2 --file-total-size=512K --file-block-size=4K"

describe("fileio", function()
  before_each(function() os.execute("rm -f " .. h.q(dir) .. "/test_file.*") end)

  it("prepare creates files with real writes, reuses and extends them; cleanup removes them", function()
    local out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("2 files, 256Kb each, 0Mb total\nCreating files for the test...\nExtra file open flags: (none)\nCreating file test_file.0\nCreating file test_file.1\n", 1, true), out)
    assert.is_truthy(out:match("524288 bytes written in [%d.]+ seconds %([%d.]+ MiB/sec, [%d.]+ MB/sec%)%."), out)
    for i = 0, 1 do
      local n, seqs = verify_file(dir .. "/test_file." .. i, 4096)
      assert.are.equal(64, n)
      assert.are.equal(0, seqs[1])
    end
    out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("Reusing existing file test_file.0\nReusing existing file test_file.1\nNo bytes written.", 1, true), out)
    -- seqwr prepares the same files (sysbench 1.0.20's binary does; it once removed them), and
    -- a longer file is kept as it is
    sh("truncate -s 300000 " .. h.q(dir .. "/test_file.0"))
    out = ok_run(SMALL .. " --file-test-mode=seqwr --validate prepare")
    assert.is_truthy(out:find("Reusing existing file test_file.0\nReusing existing file test_file.1\nNo bytes written.", 1, true), out)
    assert.are.equal(300000, size_of(dir .. "/test_file.0"))
    sh("truncate -s 100000 " .. h.q(dir .. "/test_file.1"))
    out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("Extending existing file test_file.1", 1, true), out)
    assert.are.equal(262144, size_of(dir .. "/test_file.1"))
    out = ok_run(SMALL .. " cleanup")
    assert.is_truthy(out:find("Removing test files...", 1, true))
    assert.is_nil(size_of(dir .. "/test_file.0"))
  end)

  it("prepare rewrites a file of the right size that has holes instead of reusing it", function()
    -- truncate -s: the right size and nothing on disk (O_DIRECT reads of holes never reach it)
    sh("truncate -s 256K " .. h.q(dir .. "/test_file.0"))
    local out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("Rewriting existing file test_file.0 from byte 0 (it has holes: never written)\n" ..
      "Creating file test_file.1\n", 1, true), out)
    assert.is_truthy(out:find("\n524288 bytes written in", 1, true), out)
    for i = 0, 1 do assert.are.equal(64, (verify_file(dir .. "/test_file." .. i, 4096))) end
    -- written in part: kept up to the first hole, written from there
    sh("truncate -s 65536 " .. h.q(dir .. "/test_file.1") .. " && truncate -s 256K " .. h.q(dir .. "/test_file.1"))
    out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("Reusing existing file test_file.0\n" ..
      "Rewriting existing file test_file.1 from byte 65536 (it has holes: never written)\n", 1, true), out)
    assert.is_truthy(out:find("\n196608 bytes written in", 1, true), out)
    assert.are.equal(64, (verify_file(dir .. "/test_file.1", 4096)))
    out = ok_run(SMALL .. " --validate prepare")
    assert.is_truthy(out:find("No bytes written.", 1, true), out)
  end)

  it("cleanup removes what it can and says why it cannot", function()
    -- a missing directory is not "nothing to remove"
    local out, err, rc = h.run("fileio --file-dir=/nonexistent/lb " .. SMALL .. " cleanup")
    one_error(out, err, rc, "directory /nonexistent/lb does not exist (--file-dir)")
    -- absent files are fine
    ok_run(SMALL .. " cleanup")
    -- a directory where removing is refused: a read-only mount when we may mount one (root
    -- ignores permissions), else a directory without write permission
    local ro = h.tmpdir() .. "/ro-cleanup"
    os.execute("mkdir -p " .. h.q(ro))
    local mounted = os.execute("mount -t tmpfs -o size=4m lbrocl " .. h.q(ro) .. " 2>/dev/null") == 0
    finally(function()
      if mounted then os.execute("umount " .. h.q(ro) .. " 2>/dev/null") else os.execute("chmod 755 " .. h.q(ro)) end
      os.execute("rm -rf " .. h.q(ro))
    end)
    local args = "fileio --file-dir=" .. h.q(ro) .. " " .. SMALL
    local o, e, r = h.run(args .. " prepare")
    assert.are.equal(0, r, e .. o)
    local reason = "Permission denied"
    if mounted then
      os.execute("mount -o remount,ro " .. h.q(ro))
      reason = "Read-only file system"
    else
      os.execute("chmod 555 " .. h.q(ro))
    end
    out, err, rc = h.run(args .. " cleanup")
    one_error(out, err, rc, "cannot remove " .. ro .. "/test_file.0: " .. reason)
  end)

  it("mmap with direct is labelled buffered everywhere (the page cache is in the way)", function()
    ok_run(SMALL .. " prepare")
    local args = SMALL .. " --file-io-mode=mmap --file-extra-flags=direct --file-test-mode=rndrd --events=50 --time=0"
    local out, err = ok_run(args .. " run")
    assert.is_truthy(err:find("WARNING: the mmap mode goes through the page cache: --file-extra-flags=direct is ignored", 1, true), err)
    assert.is_truthy(out:find("Extra file open flags: (none)\n", 1, true), out)
    assert.is_truthy(out:find("I/O engine mmap, 1 I/O in flight per thread, buffered (page cache", 1, true), out)
    assert.is_truthy(out:find("File I/O: engine mmap, buffered (page cache), ", 1, true), out)
    assert.is_falsy(out:find("O_DIRECT", 1, true), out)
    local j = json_run(args)
    assert.is_false(j.workload_stats.direct)
    assert.is_true(j.workload_stats.buffered)
  end)

  it("libaio on a buffered file: the warning says the I/Os run one at a time, not that the depth is 1", function()
    ok_run(SMALL .. " prepare")
    local out, err = ok_run(SMALL .. " --file-io-mode=async --iodepth=8 --file-test-mode=rndrd --events=2000 --time=0 run")
    assert.is_truthy(err:find("io_submit blocks until each I/O is done, so the I/Os run one at a time and throughput " ..
      "is that of depth 1 (the achieved depth still counts each I/O until it is reaped)", 1, true), err)
    assert.is_falsy(err:find("queue depth is 1", 1, true), err)
    assert.is_truthy(out:find("Warning: libaio on buffered files blocks in io_submit: the I/Os run one at a time", 1, true), out)
    -- the figure the warning explains: I/Os are counted until reaped, so it stays near 8
    local avg = tonumber(out:match("Achieved queue depth: ([%d.]+) I/Os"))
    assert.is_true(avg > 1.5, out)
  end)

  it("io_uring refused: one warning sentence, no repetition", function()
    ok_run(SMALL .. " prepare")
    local out, err, rc = fileio(SMALL .. " --file-io-mode=io_uring --iodepth=4 --file-test-mode=rndrd --events=100 --time=0 run",
      { env = "LB_IO_TEST_URING_ERRNO=EPERM " })
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("WARNING: I/O engine io_uring is not available here (io_uring_setup: Operation not permitted; " ..
      "kernel.io_uring_disabled, a seccomp filter or an old kernel refuses it); using libaio instead\n", 1, true), err)
    assert.are.equal(1, h.count(err, "not available"), err)
    assert.is_falsy(err:find("fall back", 1, true), err)
    assert.is_truthy(out:find("I/O engine: libaio (io_uring not available here)", 1, true), out)
  end)

  for _, eng in ipairs(ENGINES) do
    local flags = eng == "mmap" and "" or " --file-extra-flags=direct"
    local base = SMALL .. " --file-io-mode=" .. eng .. " --iodepth=8 --file-fsync-freq=0 --validate" .. flags

    it(eng .. ": seqwr writes exactly the blocks it reports, where it says", function()
      local j = json_run(base .. " --file-test-mode=seqwr --events=100 --time=0")
      local w = j.workload_stats
      assert.are.equal(100, w.write.total_ios)
      assert.are.equal(409600, w.write.io_bytes)
      assert.are.equal(100, j.counters.events)
      -- creation test: file 0 full (64 blocks), file 1 holds the other 36
      local n0, s0 = verify_file(dir .. "/test_file.0", 4096)
      local n1 = verify_file(dir .. "/test_file.1", 4096, 36 * 4096)
      assert.are.equal(64, n0)
      assert.are.equal(36, n1)
      if eng ~= "mmap" then assert.are.equal(36 * 4096, size_of(dir .. "/test_file.1")) end
      for _, s in ipairs(s0) do assert.is_true(s > 0, "every block of file 0 was rewritten") end
    end)

    it(eng .. ": random writes land where claimed; reads verify every block", function()
      -- the creation test wrote file 0 and 36 blocks of file 1 (mmap sized file 1 first: the
      -- rest is holes): prepare keeps file 0 and writes file 1 from its 37th block on
      ok_run(base .. " --file-test-mode=seqwr --events=100 --time=0 run")
      local out = ok_run(SMALL .. " --validate prepare")
      assert.is_truthy(out:find("Reusing existing file test_file.0\n", 1, true), out)
      local verb = eng == "mmap" and "Rewriting existing file test_file.1 from byte 147456 (it has holes: never written)\n"
        or "Extending existing file test_file.1\n"
      assert.is_truthy(out:find(verb, 1, true), out)
      assert.is_truthy(out:find("\n114688 bytes written in", 1, true), out)
      local before = {}
      for i = 0, 1 do
        local n, seqs = verify_file(dir .. "/test_file." .. i, 4096)
        assert.are.equal(64, n)
        before[i] = seqs
      end
      local j = json_run(base .. " --file-test-mode=rndwr --events=200 --time=0")
      assert.are.equal(200, j.workload_stats.write.total_ios)
      assert.are.equal(200 * 4096, j.workload_stats.write.io_bytes)
      local rewritten = 0
      for i = 0, 1 do
        local n, seqs = verify_file(dir .. "/test_file." .. i, 4096)
        assert.are.equal(64, n)
        for k, s in ipairs(seqs) do if s ~= before[i][k] then rewritten = rewritten + 1 end end
      end
      assert.is_true(rewritten > 0 and rewritten <= 200, "blocks rewritten: " .. rewritten)
      for _, m in ipairs({ "seqrd", "rndrd", "rndrw" }) do
        j = json_run(base .. " --file-test-mode=" .. m .. " --events=300 --time=0")
        local r = j.workload_stats.read
        assert.is_truthy(r, m)
        local expect_reads = sysbench_sequence(m, 300, 2, 0, 1.5)
        assert.are.equal(expect_reads, r.total_ios, m)
        assert.are.equal(expect_reads * 4096, r.io_bytes, m)
      end
    end)
  end

  it("--validate catches a torn block and a misplaced one", function()
    ok_run(SMALL .. " --validate prepare")
    local f = assert(io.open(dir .. "/test_file.1", "r+b"))
    f:seek("set", 5 * 4096 + 1000)
    f:write("corrupted on purpose")
    f:close()
    local out, err, rc = fileio(SMALL .. " --validate --file-test-mode=seqrd --events=200 --time=0 run")
    one_error(out, err, rc, "Validation failed on " .. dir .. "/test_file.1: block at offset 20480")
    assert.is_truthy(err:find("torn or corrupted", 1, true), err)
    -- a block copied over another: intact, but written for another offset
    ok_run(SMALL .. " --validate prepare") -- reuses: the files keep the corruption
    ok_run(SMALL .. " cleanup")
    ok_run(SMALL .. " --validate prepare")
    sh(string.format("dd if=%s of=%s bs=4096 skip=3 seek=7 count=1 conv=notrunc", h.q(dir .. "/test_file.0"),
      h.q(dir .. "/test_file.0")))
    out, err, rc = fileio(SMALL .. " --validate --file-test-mode=seqrd --file-io-mode=io_uring --iodepth=4 --events=200 --time=0 run")
    one_error(out, err, rc, "block at offset 28672 holds the intact block written for offset 12288")
    ok_run(SMALL .. " cleanup")
  end)

  it("--iodepth=N keeps N I/Os in flight on a direct file", function()
    ok_run("--file-num=1 --file-total-size=64M --file-extra-flags=direct prepare")
    for _, eng in ipairs({ "async", "io_uring" }) do
      local j = json_run("--file-num=1 --file-total-size=64M --file-extra-flags=direct --file-block-size=4K " ..
        "--file-test-mode=rndrd --file-io-mode=" .. eng .. " --iodepth=16 --time=2")
      local d = j.workload_stats.depth
      assert.are.equal(16, d.requested)
      assert.is_true(d.avg_per_thread > 14 and d.avg_per_thread <= 16.001, eng .. ": achieved " .. d.avg_per_thread)
      assert.is_true(d.time_pct["16-31"] > 80, eng)
      assert.is_truthy(j.workload_stats.read.submit_ns, "asynchronous engines report the submit part")
      assert.is_truthy(j.workload_stats.read.completion_ns)
    end
    -- psync completes each I/O before the next: depth 1 at most, and the option says so
    local out, err = ok_run("--file-num=1 --file-total-size=64M --file-extra-flags=direct --file-block-size=4K " ..
      "--file-test-mode=rndrd --iodepth=16 --time=1 run")
    assert.is_truthy(err:find("WARNING: --iodepth=16 has no effect with the psync engine", 1, true), err)
    local avg = tonumber(out:match("Achieved queue depth: ([%d.]+) I/Os in flight per thread"))
    assert.is_true(avg > 0.2 and avg <= 1.0001, out)
    ok_run("--file-num=1 --file-total-size=64M cleanup")
  end)

  it("1 MiB direct reads reach the device whole (buffers on huge pages: no split for too many segments)", function()
    -- On a loop device of its own (direct I/O to a file under the build tree), whose counters
    -- count this run's requests alone, read before and after it: a disk's own are shared with
    -- whatever else the machine reads. A loop device takes at most 128 segments of at most
    -- 64 KiB a request, so a 1 MiB buffer of scattered 4 KiB pages (256 segments) is split in
    -- two, one of huge pages (16 segments) is not.
    local thp = sh("cat /sys/kernel/mm/transparent_hugepage/enabled")
    if not (thp:find("[always]", 1, true) or thp:find("[madvise]", 1, true)) then
      pending("transparent huge pages are off: " .. thp)
      return
    end
    local img = (os.getenv("LB_BUILD_ROOT") or h.tmpdir()) .. "/fileio-loop-" .. tostring(math.random(1e9)) .. ".img"
    local ldir = h.tmpdir() .. "/fileio-loop"
    local out, rc = sh_rc(string.format("truncate -s 64M %s && mkdir -p %s && losetup --direct-io=on -f --show %s",
      h.q(img), h.q(ldir), h.q(img)))
    local loopdev = out:match("(/dev/loop%d+)")
    finally(function()
      if loopdev then os.execute("losetup -d " .. loopdev .. " 2>/dev/null") end
      os.execute("rm -rf " .. h.q(img) .. " " .. h.q(ldir))
    end)
    if rc ~= 0 or not loopdev then
      assert.is_nil(os.getenv("CI") == "true" and ("cannot attach a loop device: " .. out) or nil)
      pending("cannot attach a loop device: " .. out)
      return
    end
    os.execute("ln -sf " .. loopdev .. " " .. h.q(ldir .. "/test_file.0"))
    local name = loopdev:match("(loop%d+)")
    local function reads()
      local f = io.open("/sys/block/" .. name .. "/stat")
      local line = f:read("*l")
      f:close()
      local v = {}
      for n in line:gmatch("%d+") do v[#v + 1] = tonumber(n) end
      return v[1], v[3] -- reads completed, sectors read
    end
    local n0, s0 = reads()
    local text, err, code = h.run("fileio --file-dir=" .. h.q(ldir) .. " --file-num=1 --file-total-size=64M " ..
      "--file-extra-flags=direct --file-block-size=1M --file-test-mode=seqrd --file-io-mode=async --iodepth=4 " ..
      "--time=1 run")
    local n1, s1 = reads()
    assert.are.equal(0, code, err .. text)
    local ios = tonumber(text:match("total number of events: +(%d+)"))
    assert.is_true(n1 > n0 and ios and ios > 0, text)
    -- every 1 MiB read reached the device (those still in flight at the end too, up to the depth)
    assert.is_true(s1 - s0 >= ios * 2048 and s1 - s0 <= (ios + 4) * 2048,
      (s1 - s0) .. " sectors read for " .. ios .. " reads of 1 MiB")
    -- and whole: about one request each
    local per_req = (s1 - s0) / 2 / (n1 - n0)
    assert.is_true(per_req >= 0.8 * 1024, string.format("%.1f KiB per request on %s\n%s", per_req, loopdev, text))
  end)

  -- fio's rw=readwrite with fdatasync=1: reads and writes each sequential from their own
  -- position, a sync after every I/O once the job has written. Compared with fio itself, both
  -- traced (strace counts the system calls each makes).
  it("seqrw with --file-fsync-every-io does what fio's readwrite job with fdatasync=1 does", function()
    local opts = "--file-num=1 --file-total-size=1M --file-block-size=4K"
    ok_run(opts .. " --validate prepare")
    local before = select(2, verify_file(dir .. "/test_file.0", 4096))
    local trace = dir .. "/lb.trace"
    -- (LeakSanitizer cannot run under ptrace: the sanitizer build's leak check is off here)
    local out, rc = sh_rc(string.format("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "
      .. "strace -f -o %s -e trace=pread64,pwrite64,fdatasync,fsync %s fileio --file-dir=%s %s "
      .. "--file-test-mode=seqrw --file-rw-ratio=1 --file-fsync-every-io --file-fsync-mode=fdatasync --validate "
      .. "--events=128 --time=0 --format=json run", h.q(trace), h.q(h.bin), h.q(dir), opts))
    assert.are.equal(0, rc, out)
    local j = h.json(out:match("(%b{})%s*$"))
    local w = j.workload_stats
    assert.are.equal(64, w.read.total_ios)
    assert.are.equal(64, w.write.total_ios)
    assert.are.equal(128, w.sync.total_ios, "a sync after every I/O (the first is a write)")
    assert.is_true(w.fsync_every_io)
    -- the system calls, in order: each I/O at the next offset of its own direction, then its sync
    local calls = {}
    for l in h.read(trace):gmatch("[^\n]+") do
      local call, off = l:match("(p%a+64)%(%d+, .-, 4096, (%d+)%)")
      if call then calls[#calls + 1] = { call, tonumber(off) } end
      if l:find("fdatasync(", 1, true) then calls[#calls + 1] = { "fdatasync" } end
    end
    assert.are.equal(256, #calls)
    local next_off = { pread64 = 0, pwrite64 = 0 }
    for i = 1, 256, 2 do
      local io = calls[i]
      assert.are.equal(next_off[io[1]], io[2], "call " .. i)
      next_off[io[1]] = io[2] + 4096
      assert.are.equal("fdatasync", calls[i + 1][1], "call " .. i + 1)
    end
    assert.are.same({ pread64 = 64 * 4096, pwrite64 = 64 * 4096 }, next_off)
    -- on disk: the first 64 blocks rewritten, the rest as prepared
    local _, after = verify_file(dir .. "/test_file.0", 4096)
    for k = 1, 256 do
      if k <= 64 then assert.are_not.equal(before[k], after[k], "block " .. k) else assert.are.equal(before[k], after[k], "block " .. k) end
    end
    -- fio's own job on the same file: a sync after every I/O from its first write on (its mix
    -- is random, so the first write comes when it comes), but none after its last
    local fio_trace = dir .. "/fio.trace"
    out, rc = sh_rc(string.format("strace -f -y -o %s -e trace=read,write,fdatasync fio --name=rw "
      .. "--filename=%s/test_file.0 --size=1M --io_size=512K --rw=readwrite --ioengine=sync --fdatasync=1 --bs=4k "
      .. "--output-format=json", h.q(fio_trace), h.q(dir)))
    assert.are.equal(0, rc, out)
    local fj = h.json(out:match("(%b{})%s*$"))
    assert.are.equal(128, fj.jobs[1].read.total_ios + fj.jobs[1].write.total_ios)
    local seq = {}
    for l in h.read(fio_trace):gmatch("[^\n]+") do
      local call = l:match("(%a+)%(%d+<[^>]*test_file%.0>")
      if call == "read" or call == "write" or call == "fdatasync" then seq[#seq + 1] = call end
    end
    local ios, after_first_write, syncs, wrote = 0, 0, 0, false
    for _, call in ipairs(seq) do
      if call == "fdatasync" then
        syncs = syncs + 1
      else
        ios = ios + 1
        wrote = wrote or call == "write"
        if wrote then after_first_write = after_first_write + 1 end
      end
    end
    assert.are.equal(128, ios)
    assert.are.equal(after_first_write - 1, syncs, "fio: syncs after every I/O from its first write on")
    -- sysbench has no such mode
    local sb_out, sb_rc = sh_rc(string.format("cd %s && ln -sf %s sysbench && ./sysbench fileio --file-test-mode=seqrw %s run", h.q(dir), h.q(h.bin), opts))
    assert.are.equal(1, sb_rc)
    assert.is_truthy(sb_out:find("FATAL: Invalid IO operations mode: seqrw.", 1, true), sb_out)
  end)

  it("counts in the report are those the options imply (sysbench's request sequence)", function()
    ok_run(SMALL .. " prepare")
    -- every 10 requests one fsync per file; 2 more at the end: 21 writes, 4 + 2 fsyncs
    local out = ok_run(SMALL .. " --file-test-mode=rndwr --file-fsync-freq=10 --events=25 --time=0 run")
    assert.is_truthy(out:match("total number of events:%s+25\n"), out)
    assert.is_truthy(out:match("\n    write +[%d.]+ +[%d.]+ +[%d.]+ +21 +86016 +0\n"), out)
    assert.is_truthy(out:match("\n    fsync +[%d.]+ +0%.00 +0%.00 +6 +0 +0\n"), out)
    local secs = tonumber(out:match("total time:%s+([%d.]+)s"))
    local wps = tonumber(out:match("    writes/s:%s+([%d.]+)\n"))
    -- both are rounded as printed (4 and 2 decimals): a run of 1.4 ms is 0.0014 s +- 3.5%
    local bound = wps * 0.00005 + secs * 0.005 + 1e-9
    assert.is_true(math.abs(wps * secs - 21) <= bound,
      string.format("writes/s x time = %.4f, not 21 +- %.4f", wps * secs, bound))
    -- rndrw: reads while (reads + 1) / (writes + 1) < ratio; fsyncs on every 7th request
    for _, eng in ipairs({ "sync", "io_uring" }) do
      local j = json_run(SMALL .. " --file-test-mode=rndrw --file-rw-ratio=2 --file-fsync-freq=7 --events=1000 --time=0 --file-io-mode=" .. eng)
      local r, wr, fs = sysbench_sequence("rndrw", 1000, 2, 7, 2)
      local w = j.workload_stats
      assert.are.equal(r, w.read.total_ios, eng)
      assert.are.equal(wr, w.write.total_ios, eng)
      assert.are.equal(fs + 2, w.sync.total_ios, eng)
      assert.are.equal(1000, j.counters.events, eng)
      assert.are.equal(r * 4096, j.counters.bytes_read, eng)
      assert.are.equal(wr * 4096, j.counters.bytes_written, eng)
    end
    -- merged sequential requests stop at each file's end: 3 files of 100 KiB, 32 KiB requests
    local j = json_run("--file-num=3 --file-total-size=300K --file-block-size=16K --file-merged-requests=2 " ..
      "--file-test-mode=seqwr --file-fsync-freq=0 --events=12 --time=0")
    assert.are.equal(12, j.workload_stats.write.total_ios)
    assert.are.equal(307200, j.workload_stats.write.io_bytes)
    for i = 0, 2 do assert.are.equal(102400, size_of(dir .. "/test_file." .. i)) end
    ok_run("--file-num=3 cleanup")
  end)

  it("keeps sysbench's report layout and adds its own blocks", function()
    ok_run(SMALL .. " prepare")
    local out = ok_run(SMALL .. " --file-test-mode=rndrw --file-io-mode=io_uring --iodepth=4 --time=2 --report-interval=1 run")
    assert.is_truthy(out:find("Extra file open flags: (none)\n2 files, 256KiB each\n512KiB total file size\nBlock size 4KiB\nNumber of IO requests: 0\nRead/Write ratio for combined random IO test: 1.50\nPeriodic FSYNC enabled, calling fsync() each 100 requests.\nCalling fsync() at the end of test, Enabled.\nUsing asynchronous (io_uring) I/O mode\nDoing random r/w test\n", 1, true), out)
    assert.is_truthy(out:match("%[ 1s %] reads: [%d.]+ MiB/s writes: [%d.]+ MiB/s fsyncs: [%d.]+/s latency %(ms,95%%%): [%d.]+\n"), out)
    assert.is_truthy(out:match("\n\nFile operations:\n    reads/s:                      [%d.]+\n    writes/s:                     [%d.]+\n    fsyncs/s:                     [%d.]+\n\nThroughput:\n    read, MiB/s:                  [%d.]+\n    written, MiB/s:               [%d.]+\n\nGeneral statistics:"), out)
    for _, s in ipairs({ "Throughput by direction (MiB = 2^20 bytes, MB = 10^6 bytes):",
      "Latency by direction, submit to reap (ms):", "read submit", "write completion",
      "Latency histogram, SQLIO style", "IOPS over 2 whole 1 s intervals:", "Achieved queue depth:",
      "Process CPU:", "buffered (page cache)" }) do
      assert.is_truthy(out:find(s, 1, true), s)
    end
    local j = json_run(SMALL .. " --file-test-mode=rndrw --file-io-mode=async --iodepth=4 --time=2 --percentile=99.9")
    local w = j.workload_stats
    for _, d in ipairs({ "read", "write", "sync" }) do
      local l = w[d].lat_ns
      local sum = 0
      for _, v in ipairs(l.sqlio_ms_counts) do sum = sum + v end
      assert.are.equal(l.N, sum, d .. ": the SQLIO histogram holds every I/O")
      assert.is_true(l.min <= l.percentile["50"] and l.percentile["50"] <= l.percentile["99.99"] and l.percentile["99.99"] <= l.max, d)
      assert.is_truthy(l.percentile["99.9"], d)
    end
    assert.is_true(w.buffered)
    assert.are.equal("libaio", w.engine)
    assert.is_true(w.cpu.us_per_io > 0)
    assert.are.equal(w.read.total_ios + w.write.total_ios + w.sync.total_ios - 2, j.counters.events)
    if w.device then
      assert.is_true(w.device.reads + w.device.writes >= 0 and w.device.name ~= "")
    end
    ok_run(SMALL .. " cleanup")
  end)

  it("excludes the warm-up", function()
    ok_run(SMALL .. " prepare")
    local j, err = json_run(SMALL .. " --file-test-mode=rndrd --file-io-mode=io_uring --iodepth=2 --warmup-time=1 --time=1")
    local w = j.workload_stats
    -- the window's baseline reads events and types together (re-read when the worker moved
    -- meanwhile); only an I/O between its type count and its event count can differ, one per thread
    local diff = math.abs(j.counters.events - w.read.total_ios)
    assert.is_true(diff <= 1, "events " .. j.counters.events .. ", reads " .. w.read.total_ios)
    assert.are.equal(1, j.warmup_s)
    assert.is_true(w.runtime_s < 1.5, "the window is the measured second only")
    assert.is_true(w.iops_samples <= 1)
    ok_run(SMALL .. " cleanup")
  end)

  it("keeps a per-second sample for every measured second, whatever the warm-up", function()
    ok_run(SMALL .. " prepare")
    for _, warmup in ipairs({ 0, 1 }) do
      local j = json_run(SMALL .. " --file-test-mode=rndrd --time=3 --warmup-time=" .. warmup)
      local w = j.workload_stats
      assert.are.equal(3, w.iops_samples, "warm-up " .. warmup)
      assert.are.equal(3, #w.iops_per_second.total)
      local sum = 0
      for _, v in ipairs(w.iops_per_second.total) do
        assert.is_true(v > 0, "an empty second: " .. table.concat(w.iops_per_second.total, ","))
        sum = sum + v
      end
      -- the samples are the window's I/Os (those of its last few ms aside; one I/O of the thread
      -- may straddle the window's start, as in "excludes the warm-up")
      assert.is_true(sum <= w.read.total_ios + 1 and sum >= 0.95 * w.read.total_ios, sum .. " of " .. w.read.total_ios)
    end
    ok_run(SMALL .. " cleanup")
  end)

  it("bounds --iodepth by each engine's own limit, before anything runs", function()
    ok_run(SMALL .. " prepare")
    local out, err, rc = fileio(SMALL .. " --file-test-mode=rndrd --file-io-mode=io_uring --iodepth=40000 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("FATAL: --iodepth=40000: the io_uring engine holds at most 32768 I/Os in flight " ..
      "per thread (the kernel's IORING_MAX_ENTRIES)", 1, true), err)
    assert.is_falsy(out:find("Threads started", 1, true), out)
    assert.is_falsy(err:find("fall back", 1, true), err)
    local most, why = lio.max_depth("libaio")
    assert.is_true(most >= 1 and most <= 65536 and why:find("aio-max-nr", 1, true) ~= nil, why)
    ok_run(SMALL .. " cleanup")
  end)

  it("counts every second and every I/O at the deepest libaio depth the system leaves", function()
    local files = "--file-num=1 --file-total-size=8M --file-block-size=4K"
    ok_run(files .. " prepare")
    -- As deep as the system's AIO contexts allow (fs.aio-max-nr, shared by every process), less
    -- 8192 left to the others: the specs running beside this one use libaio too (compare_points'
    -- sweeps failed io_setup(1) while this held them all). One another process takes between
    -- lio.max_depth and io_setup (another test run) fails the setup, "aio-max-nr reached"; the
    -- depth is then measured again.
    local function run_deepest(args)
      for _ = 1, 5 do
        local depth = math.max(1, math.min(65536, (lio.max_depth("libaio")) - 8192))
        local out, err, rc = fileio(args .. " --iodepth=" .. depth)
        if rc == 0 or not err:find("aio-max-nr reached", 1, true) then
          assert.are.equal(0, rc, err)
          return out
        end
      end
      error("the system's AIO contexts stayed taken by other processes")
    end
    local j = h.json(run_deepest(files .. " --file-test-mode=rndrd --file-io-mode=async --file-extra-flags=direct " ..
      "--time=2 --format=json run"))
    local w = j.workload_stats
    assert.are.equal(2, w.iops_samples)
    for _, v in ipairs(w.iops_per_second.total) do assert.is_true(v > 0, table.concat(w.iops_per_second.total, ",")) end
    assert.is_true(j.counters.reads > 0 and w.read.total_ios == j.counters.reads)
    local out = run_deepest(files .. " --file-test-mode=rndrd --file-io-mode=async --file-extra-flags=direct " ..
      "--time=1 run")
    assert.is_truthy(out:match("\n    read +[%d.]+ +[%d.]+ +[%d.]+ +[1-9]%d*"), out)
    ok_run(files .. " cleanup")
  end)

  it("fails a run that completes no I/O in its measured window (as any run with no event)", function()
    ok_run(SMALL .. " prepare")
    -- one arrival at the start (in the warm-up), the next some 10,000 s later: the thread stops
    -- during the warm-up
    local args = SMALL .. " --file-test-mode=rndrd --rate=0.0001 --warmup-time=1 --time=1 --format=json run"
    local out, err, rc = fileio(args)
    assert.are.equal(1, rc, err)
    assert.is_truthy(err:find("\nFATAL: the run ended %d+%.%d%d s into its 1%.00 s warm%-up: nothing was measured"), err)
    local j = h.json(out)
    assert.are.equal("failed", j.status)
    assert.is_truthy(j.error:find("^the run ended"), j.error)
    -- as sysbench 1.0.20: the report (of that one I/O), exit 0
    out, err, rc = fileio(args, { env = "LUABENCH_PERSONALITY=sysbench " })
    assert.are.equal(0, rc, err)
    assert.are.equal("ok", h.json(out).status)
    ok_run(SMALL .. " cleanup")
  end)

  it("--rate: requests arrive at the rate, one I/O in flight per thread while waiting", function()
    ok_run(SMALL .. " prepare")
    local j = json_run(SMALL .. " --file-test-mode=rndrd --file-io-mode=io_uring --iodepth=8 --rate=500 --time=2")
    local n = j.workload_stats.read.total_ios
    assert.is_true(n > 700 and n < 1300, "about 1000 requests: " .. n)
    assert.is_true(j.workload_stats.depth.avg_per_thread <= 1.001)
    ok_run(SMALL .. " cleanup")
  end)

  it("block-size mixes, random without repeats and per-thread sequential positions", function()
    ok_run("--file-num=1 --file-total-size=4M --file-block-size=8K --validate prepare")
    local j = json_run("--file-num=1 --file-total-size=4M --file-block-size=8K:60,64K:30,512K:10 " ..
      "--file-test-mode=rndrd --events=2000 --time=0 --validate --threads=2 --file-io-mode=io_uring --iodepth=4")
    local b = j.workload_stats.read.io_bytes
    assert.are.equal(2000, j.workload_stats.read.total_ios)
    assert.is_true(b > 2000 * 8192 and b < 2000 * 524288)
    assert.is_true(b % 8192 == 0)
    -- without repeats: the offsets are a permutation of the blocks (checked below on the
    -- permutation itself); here the run's counts
    j = json_run("--file-num=1 --file-total-size=4M --file-block-size=8K --file-random-map " ..
      "--file-test-mode=rndrd --events=512 --time=0 --validate")
    assert.are.equal(512, j.workload_stats.read.total_ios)
    j = json_run("--file-num=1 --file-total-size=4M --file-block-size=8K --file-seq-shared=off " ..
      "--file-test-mode=seqrd --events=100 --threads=2 --time=0 --validate")
    assert.are.equal(100, j.workload_stats.read.total_ios)
    ok_run("--file-num=1 cleanup")
    for _, n in ipairs({ 1, 2, 3, 7, 100, 4096, 100003 }) do
      local seen, key = {}, n * 7 + 1
      for i = 0, n - 1 do
        local v = tonumber(ffi.C.lb_fio_perm(i, n, key))
        assert.is_true(v >= 0 and v < n and not seen[v], "permutation of " .. n)
        seen[v] = true
      end
    end
  end)

  describe("bad input gives one clear line", function()
    it("missing directory", function()
      local out, err, rc = h.run("fileio --file-dir=/nonexistent/lb " .. SMALL .. " prepare")
      one_error(out, err, rc, "directory /nonexistent/lb does not exist")
      out, err, rc = h.run("fileio --file-dir=/nonexistent/lb " .. SMALL .. " --file-test-mode=rndrd run")
      one_error(out, err, rc, "directory /nonexistent/lb does not exist")
    end)

    it("missing files and a missing test mode", function()
      local out, err, rc = fileio(SMALL .. " --file-test-mode=rndrd run")
      one_error(out, err, rc, "Did you forget to run the prepare step?")
      out, err, rc = fileio(SMALL .. " run")
      one_error(out, err, rc, "Missing required argument: --file-test-mode")
    end)

    it("O_DIRECT with an unaligned block size", function()
      ok_run("--file-num=1 --file-total-size=1M prepare")
      local out, err, rc = fileio("--file-num=1 --file-total-size=1M --file-block-size=1000 --file-extra-flags=direct --file-test-mode=rndrd run")
      one_error(out, err, rc, "--file-block-size=1000 is not a multiple of 512 bytes: O_DIRECT on")
      ok_run("--file-num=1 cleanup")
    end)

    it("O_DIRECT with an unaligned file size: prepare refuses it as run does", function()
      local args = "--file-num=3 --file-total-size=1M --file-extra-flags=direct"
      local msg = "the file size 349525 (--file-total-size / --file-num) is not a multiple of "
      local out, err, rc = fileio(args .. " prepare")
      one_error(out, err, rc, msg)
      assert.is_nil(size_of(dir .. "/test_file.0"), "nothing is left behind")
      ok_run("--file-num=3 --file-total-size=1M prepare")
      out, err, rc = fileio(args .. " --file-test-mode=rndrd run")
      one_error(out, err, rc, msg)
      ok_run("--file-num=3 cleanup")
    end)

    it("no space left (a full tmpfs when we may mount one, and a file size limit)", function()
      local mnt = h.tmpdir() .. "/tiny"
      os.execute("mkdir -p " .. h.q(mnt))
      local mounted = os.execute("mount -t tmpfs -o size=1m lbtiny " .. h.q(mnt) .. " 2>/dev/null") == 0
      -- a failed assertion must not leave the mount behind (one mount at a time is active)
      finally(function() os.execute("umount " .. h.q(mnt) .. " 2>/dev/null") end)
      if mounted then
        local out, err, rc = h.run("fileio --file-dir=" .. mnt .. " --file-num=2 --file-total-size=4M prepare")
        one_error(out, err, rc, "no space left on device")
        out, err, rc = h.run("fileio --file-dir=" .. mnt .. " --file-num=1 --file-total-size=4M --file-block-size=64K --file-test-mode=seqwr --time=5 run")
        one_error(out, err, rc, "No space left on device (the disk is full)")
        -- mmap: its files are sized first; a store into a page the disk cannot hold is a
        -- SIGBUS unless the space is reserved when mapping
        out, err, rc = h.run("fileio --file-dir=" .. mnt .. " --file-num=1 --file-total-size=32M --file-test-mode=seqwr --file-io-mode=mmap --time=3 run")
        one_error(out, err, rc, "write " .. mnt .. "/test_file.0 at offset 0 failed: No space left on device (the disk is full)")
        os.execute("umount " .. h.q(mnt))
        os.execute("mount -t tmpfs -o size=1m,ro lbro " .. h.q(mnt))
        out, err, rc = h.run("fileio --file-dir=" .. mnt .. " --file-num=1 --file-total-size=64K prepare")
        one_error(out, err, rc, "read-only file system")
        out, err, rc = h.run("fileio --file-dir=" .. mnt .. " --file-num=1 --file-total-size=64K --file-test-mode=seqwr run")
        one_error(out, err, rc, "Read-only file system")
        os.execute("umount " .. h.q(mnt))
      end
      -- ulimit -f is in KiB blocks in bash/dash: 1024 = 1 MiB
      local out, err, rc = h.run("fileio --file-dir=" .. h.q(dir) .. " --file-num=1 --file-total-size=4M prepare",
        { env = "ulimit -f 1024; " })
      one_error(out, err, rc, "file too large")
      assert.is_nil(size_of(dir .. "/test_file.0"), "the partial file is removed")
    end)
  end)
end)

describe("luabench.io", function()
  it("describes engines by capability", function()
    local c = lio.capabilities("io_uring")
    assert.are.same({ queue = true, buffered_queue = true, direct = true, sized_files = false, moves_data = true }, c)
    assert.are.same({ queue = true, buffered_queue = false, direct = true, sized_files = false, moves_data = true },
      lio.capabilities("libaio"))
    assert.are.same({ queue = false, buffered_queue = false, direct = true, sized_files = false, moves_data = true },
      lio.capabilities("psync"))
    assert.are.same({ queue = false, buffered_queue = false, direct = false, sized_files = true, moves_data = true },
      lio.capabilities("mmap"))
    assert.is_false(lio.capabilities("null").moves_data)
    local none, why = lio.capabilities("aio")
    assert.is_nil(none)
    assert.are.equal("unknown I/O engine", why)
  end)

  it("opens with flags, does aligned blocking I/O and queued I/O with tags", function()
    local path = dir .. "/api.dat"
    lio.prepare(path, 1048576, { direct = true })
    local f = lio.open(path, "direct,dsync")
    assert.is_true(f.direct)
    assert.are.equal(1048576, f.size)
    assert.is_true(f.align >= 1 and f.mem_align >= 1)
    local buf = lio.buffer(65536, f.mem_align)
    lio.block_fill(buf, 4096, 8192, 7)
    assert.are.equal(4096, f:pwrite(buf, 4096, 8192, "api write"))
    assert.are.equal(4096, f:pread(buf + 4096, 4096, 8192, "api read"))
    assert.is_true((lio.block_verify(buf + 4096, 4096, 8192)))
    f:fdatasync()
    assert.is_truthy(f:check_align(buf + 1, 4096, 0))
    local q = lio.queue { engine = "io_uring", depth = 4 }
    assert.is_truthy(({ io_uring = 1, libaio = 1, psync = 1 })[q.engine])
    for i = 0, 3 do q:read(f, buf + i * 4096, 4096, i * 4096, "api qread", 100 + i) end
    local tags, got = {}, 0
    while got < 4 do
      local n = q:reap(1)
      for i = 0, n - 1 do
        tags[q:tag(i)] = true
        assert.are.equal(4096, tonumber(q.done[i].result_bytes))
      end
      got = got + n
    end
    for i = 0, 3 do assert.is_true(tags[100 + i]) end
    assert.has_error(function()
      for _ = 0, 4 do q:read(f, buf, 4096, 0) end
    end, "queue full: 4 I/Os in flight at depth 4 (reap first)")
    q:drain()
    q:close()
    local ok, err = pcall(lio.open, path, "direct,bogus")
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("unknown file open flag 'bogus'", 1, true))
    local okr, errr = pcall(function() f:pread(buf + 1, 4096, 0) end)
    assert.is_false(okr)
    assert.is_truthy(tostring(errr):find("read of 4096 bytes at offset 0 of " .. path, 1, true), tostring(errr))
    f:close()
    os.remove(path)
  end)

  it("runs the log-and-pages example with each operation under its own name", function()
    local ex = h.root .. "/examples/log_and_pages.lua"
    local args = ex .. " --dir=" .. h.q(dir) .. " --data-size=16M --log-size=4M"
    local out, err, rc = h.run(args .. " prepare")
    assert.are.equal(0, rc, err)
    out, err, rc = h.run(args .. " --threads=2 --depth=4 --time=2 --format=json run")
    assert.are.equal(0, rc, err)
    local j = h.json(out)
    local tw, tr = j.types["log write"], j.types["page read"]
    assert.is_truthy(tw and tr, out)
    assert.is_true(tw.count > 0 and tr.count > 0)
    -- the log holds the appended records, each a valid block at its offset, in order
    local nrec = math.min(tw.count, 512)
    local _, seqs = verify_file(dir .. "/log.dat", 8192, nrec * 8192)
    if tw.count <= 512 then
      for i = 1, nrec do assert.are.equal(i, seqs[i]) end
    end
    h.run(args .. " cleanup")
    assert.is_nil(size_of(dir .. "/log.dat"))
  end)
end)

describe("tools/io-matrix", function()
  local tool = h.root .. "/tools/io-matrix"
  -- the last block: remove this spec's files (up to 64 MiB) with it
  teardown(function() os.execute("rm -rf " .. h.q(dir)) end)
  it("prints the plan with --dry-run", function()
    local out = sh(tool .. " --targets=/a,/b --size=1G --time=10 --warmup=2 --pause=3 --out=out --dry-run")
    -- calibrate 2 targets x 2 points x 2 modes + scale 2 x 2 x 2 + grid 2 modes x 4 bs x 3 t x 7 qd
    -- every delay: 184 x (2 s warm-up + 10 s), the 3 s start lead of the 172 runs on both targets
    -- (4 scale, 168 grid), 183 pauses of 3 s
    assert.is_truthy(out:find("# io-matrix plan: 2 target(s), 184 runs, at least 54 min 33 s:", 1, true), out)
    assert.is_truthy(out:find("fileio --file-num=1 --file-total-size=1G --file-io-mode=io_uring --file-fsync-freq=0 --file-extra-flags=direct --file-dir=/a prepare >out/prepare-a.txt 2>&1", 1, true), out)
    assert.is_truthy(out:find("# run 9/184: scale, targets: /a, rndrd, bs 8K, depth 8, threads 1", 1, true), out)
    assert.is_truthy(out:find("# run 13/184: scale, targets: /a,/b, rndrd, bs 8K, depth 8, threads 1", 1, true), out)
    assert.is_truthy(out:find("--file-dir=/b --file-test-mode=rndwr --file-block-size=512K --iodepth=64 --threads=4 --time=10 " ..
      "--warmup-time=2 --start-at=\"$start\" --output=out/run184-t2.json run >out/run184-t2.txt 2>out/run184-t2.err &", 1, true), out)
    assert.are.equal(184, h.count(out, "\nwait\n"))
    assert.are.equal(183, h.count(out, "\nsleep 3\n"))
    assert.are.equal(172, h.count(out, "\nstart=%$%(awk"))
    -- the printed plan is the script that runs: bash reads it (a tiny one, with a stand-in binary)
    local plan = sh("LUABENCH=true " .. tool .. " --targets=/a,/b --size=1G --time=1 --warmup=0 --pause=0 " ..
      "--phases=scale --points=8K:1:1 --modes=rndrd --no-prepare --out=" .. h.q(dir .. "/dry") .. " --dry-run")
    local _, rc = sh_rc("cd " .. h.q(dir) .. " && bash -euc " .. h.q(plan))
    assert.are.equal(0, rc, plan)
  end)

  -- The luabench percentile rule on histogram buckets ({lowest value, count} pairs): the first
  -- bucket whose cumulative count reaches ceil(p/100 n), at its middle.
  local function percentile(buckets, p)
    table.sort(buckets, function(a, b) return a[1] < b[1] end)
    local n = 0
    for _, b in ipairs(buckets) do n = n + b[2] end
    local rank, seen = math.max(1, math.ceil(p / 100 * n)), 0
    for _, b in ipairs(buckets) do
      seen = seen + b[2]
      if seen >= rank then
        local v = b[1]
        local width = v < 2048 and 1 or 2 ^ (math.floor(math.log(v) / math.log(2) + 1e-12) - 10)
        return (v + math.floor(width / 2)) / 1e6
      end
    end
  end

  it("computes the all row from the targets' results, a failed target left out and named", function()
    local t1, t2, t3, res = dir .. "/x1", dir .. "/x2", dir .. "/x3", dir .. "/xout"
    os.execute("mkdir -p " .. h.q(t1) .. " " .. h.q(t2) .. " " .. h.q(t3))
    for _, t in ipairs({ t1, t2 }) do
      local _, rc = sh_rc(string.format("%s fileio --file-num=1 --file-total-size=4M --file-io-mode=io_uring --file-fsync-freq=0 " ..
        "--file-extra-flags=direct --file-dir=%s prepare", h.q(h.bin), h.q(t)))
      assert.are.equal(0, rc)
    end
    -- x3 has no files: its run fails
    local out, rc = sh_rc(string.format("LUABENCH=%s %s --targets=%s,%s,%s --size=4M --time=1 --warmup=0 --pause=0 " ..
      "--phases=grid --block-sizes=4K --depths=4 --threads=1 --modes=rndrw --no-prepare --out=%s",
      h.q(h.bin), tool, t1, t2, t3, res))
    assert.are.equal(1, rc, out)
    local csv = h.read(res .. "/matrix.csv")
    local all = csv:match("\ngrid,1,2,all,rndrw,4K,4,1,([^\n]+)")
    assert.is_truthy(all, csv)
    local f = {}
    for v in all:gmatch("[^,]+") do f[#f + 1] = v end
    assert.are.equal("excluded " .. t3, f[8])
    assert.is_truthy(csv:find(t3 .. ",rndrw,4K,4,1,0,0,0,0,0,0,0,failed", 1, true), csv)
    local iops, bytes_s, n, sum_ns, buckets = 0, 0, 0, 0, {}
    for i = 1, 2 do
      local d = h.json(h.read(string.format("%s/run001-t%d.json", res, i)))
      local w = d.workload_stats
      for _, dir_name in ipairs({ "read", "write" }) do
        iops = iops + w[dir_name].iops
        bytes_s = bytes_s + w[dir_name].io_bytes / w.runtime_s
        local t = d.types[dir_name]
        n, sum_ns = n + t.count, sum_ns + t.histogram.sum_ns
        for _, b in ipairs(t.histogram.buckets) do
          buckets[#buckets + 1] = { b[1], b[2] }
        end
        -- the rule gives each direction's own p99 back
        local own = {}
        for _, b in ipairs(t.histogram.buckets) do own[#own + 1] = { b[1], b[2] } end
        assert.are.equal(t.latency_ms.percentiles["99"], percentile(own, 99))
      end
    end
    assert.are.equal(string.format("%.2f", iops), f[1])
    assert.are.equal(string.format("%.2f", bytes_s / 1048576), f[2])
    assert.are.equal(string.format("%.2f", bytes_s / 1e6), f[3])
    assert.are.equal(string.format("%.3f", sum_ns / n / 1e6), f[4])
    assert.are.equal(string.format("%.3f", percentile(buckets, 99)), f[5])
  end)

  it("runs a tiny matrix and writes the CSV and the table", function()
    local t1, t2, res = dir .. "/m1", dir .. "/m2", dir .. "/mout"
    os.execute("mkdir -p " .. h.q(t1) .. " " .. h.q(t2))
    local out = sh(string.format("LUABENCH=%s %s --targets=%s,%s --size=4M --time=1 --warmup=0 --pause=0 " ..
      "--block-sizes=8K --depths=1,4 --threads=1 --points=8K:2:1 --modes=rndrd --out=%s", h.q(h.bin), tool, t1, t2, res))
    local csv = h.read(res .. "/matrix.csv")
    assert.is_truthy(csv, out)
    -- calibrate: 2 runs x (1 target + all); scale: 2 runs (1 + all, 2 + all); grid: 2 runs x (2 + all)
    assert.are.equal(1 + 4 + 5 + 6, h.count(csv, "\n"), csv)
    assert.is_truthy(csv:find("\ngrid,6,2,all,rndrd,8K,4,1,", 1, true), csv)
    for line in csv:gmatch("[^\n]+") do
      if not line:find("^phase") then
        local iops = tonumber(line:match("^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,([%d.]+),"))
        assert.is_true(iops and iops > 0, line)
        assert.is_truthy(line:find(",ok$"), line)
      end
    end
    local tab = h.read(res .. "/table.txt")
    assert.is_truthy(tab:find("grid: rndrd, MB/s", 1, true), tab)
    assert.is_truthy(tab:match("\n +8K +4 +[%d.]+\n +8K +avg +[%d.]+\n"), tab)
    assert.is_truthy(tab:find("added target:", 1, true), tab)
  end)
end)
