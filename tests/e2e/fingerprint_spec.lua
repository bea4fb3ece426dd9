-- The machine fingerprint of a result (results.md §7.3, "machine") against what the kernel says
-- when asked directly: /proc/cpuinfo, the caches, NUMA nodes and THP in /sys, the clock measured
-- during the run, and the storage under fileio's --file-dir (findmnt, /sys/dev/block).
local h = require("helpers")

local read = h.read

local function line(path)
  return (read(path) or ""):match("^%s*(.-)%s*$")
end

local cpuinfo = read("/proc/cpuinfo")
local flags = " " .. (cpuinfo:match("\nflags%s*:%s*([^\n]*)") or cpuinfo:match("\nFeatures%s*:%s*([^\n]*)") or "") .. " "

local function mhz_range()
  local lo, hi = math.huge, 0
  for v in read("/proc/cpuinfo"):gmatch("cpu MHz%s*:%s*([%d.]+)") do
    lo, hi = math.min(lo, tonumber(v)), math.max(hi, tonumber(v))
  end
  return lo, hi
end

describe("machine fingerprint", function()
  local r, lo, hi
  setup(function()
    local json = h.tmpdir() .. "/machine.json"
    local lo1, hi1 = mhz_range()
    local _, err, rc = h.run("cpu --time=1 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local lo2, hi2 = mhz_range()
    lo, hi = math.min(lo1, lo2), math.max(hi1, hi2)
    r = h.json(h.read(json))
  end)

  it("names the CPU and its extensions as /proc/cpuinfo does", function()
    local m = r.machine
    assert.are.equal(cpuinfo:match("model name%s*:%s*([^\n]-)%s*\n") or "", m.cpu_model)
    for flag in m.cpu_isa:gmatch("%S+") do
      assert.is_truthy(flags:find(" " .. flag .. " ", 1, true), flag .. " is not a flag of this CPU")
    end
    for _, flag in ipairs({ "avx2", "avx512f", "aes", "sha_ni", "asimd", "sve" }) do
      assert.are.equal(flags:find(" " .. flag .. " ", 1, true) ~= nil,
        (" " .. m.cpu_isa .. " "):find(" " .. flag .. " ", 1, true) ~= nil, flag)
    end
  end)

  it("has the caches, NUMA nodes and THP of /sys", function()
    local m = r.machine
    local want = {}
    for i = 0, 9 do
      local d = "/sys/devices/system/cpu/cpu0/cache/index" .. i
      local level = line(d .. "/level")
      if level == "" then break end
      local kind, size = line(d .. "/type"), line(d .. "/size")
      local kib = tonumber(size:match("^%d+")) * (size:find("M") and 1024 or 1)
      local key = level == "1" and (kind == "Data" and "cache_l1d_kib" or kind == "Instruction" and "cache_l1i_kib")
        or "cache_l" .. level .. "_kib"
      if key then want[key] = kib end
    end
    for key, kib in pairs(want) do assert.are.equal(kib, m[key], key) end
    local nodes = 0
    for _ in h.sh("ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null"):gmatch("node%d+") do nodes = nodes + 1 end
    if nodes > 0 then assert.are.equal(nodes, m.numa_nodes) end
    local thp = line("/sys/kernel/mm/transparent_hugepage/enabled"):match("%[(%w+)%]")
    if thp then assert.are.equal(thp, m.thp) end
    assert.is_string(m.virtualization)
  end)

  it("measures the clock during the run", function()
    local m = r.machine
    if lo < math.huge then
      -- the kernel's per-CPU clocks read just before and after the run bound the run's mean
      assert.is_number(m.cpu_mhz_measured)
      assert.is_true(m.cpu_mhz_measured >= 0.9 * lo and m.cpu_mhz_measured <= 1.1 * hi,
        string.format("%s MHz outside %g..%g", tostring(m.cpu_mhz_measured), lo, hi))
    end
    assert.are.equal(r.system.cpu_mhz and math.floor(r.system.cpu_mhz + 0.5), m.cpu_mhz_measured)
  end)

  it("describes the storage under --file-dir", function()
    local dir = h.tmpdir() .. "/fp"
    os.execute("mkdir -p " .. h.q(dir))
    local json = dir .. "/f.json"
    local common = "fileio --file-dir=" .. dir .. " --file-num=1 --file-total-size=1M"
    local _, err, rc = h.run(common .. " prepare")
    assert.are.equal(0, rc, err)
    _, err, rc = h.run(common .. " --file-test-mode=rndrd --time=1 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    h.run(common .. " cleanup")
    local m = h.json(h.read(json)).machine
    assert.are.equal(dir, m.storage_dir)
    -- luabench report shows the fingerprint
    local html = dir .. "/f.html"
    local _, rerr, rrc = h.run("report " .. h.q(json) .. " -o " .. h.q(html))
    assert.are.equal(0, rrc, rerr)
    local page = h.read(html)
    local storage = page:match("storage</th><td class=\"k\">([^<]*)")
    assert.are.equal(dir .. ": " .. m.storage_fs, storage:sub(1, #dir + 2 + #m.storage_fs))
    local cpu = page:match("<th class=\"k\">cpu</th><td class=\"k\">([^<]*)")
    assert.is_truthy(cpu:find(m.cpu_isa, 1, true), cpu)
    if m.cpu_mhz_measured then assert.is_truthy(cpu:find(m.cpu_mhz_measured .. " MHz measured", 1, true), cpu) end
    local fs, target, options = h.sh("findmnt -n -o FSTYPE,TARGET,OPTIONS --target " .. h.q(dir)):match("^(%S+)%s+(%S+)%s+(%S+)")
    assert.are.equal(fs, m.storage_fs)
    assert.are.equal(target, m.storage_mount_point)
    for o in options:gmatch("[^,]+") do
      assert.is_truthy(("," .. m.storage_mount_options .. ","):find("," .. o .. ",", 1, true), o)
    end
    -- the whole disk holding the directory, as /sys/dev/block names it
    local dev = h.sh("stat -c '%Hd:%Ld' " .. h.q(dir)):match("%S+")
    local real = h.sh("readlink -f /sys/dev/block/" .. dev):match("%S+")
    if real and real ~= "" and not real:find("/virtual/", 1, true) then
      if read(real .. "/partition") then real = real:match("^(.*)/[^/]+$") end
      local disk = real:match("([^/]+)$")
      assert.are.equal(disk, m.storage_device)
      assert.are.equal(line("/sys/block/" .. disk .. "/queue/rotational") == "1", m.storage_rotational)
      assert.are.equal(line("/sys/block/" .. disk .. "/queue/scheduler"):match("%[(.-)%]"), m.storage_scheduler)
    end
  end)
end)
