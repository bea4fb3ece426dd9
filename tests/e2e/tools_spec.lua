-- The tools a newcomer meets first: tools/build says what it does (a fresh clone builds for
-- minutes), tools/install-deps installs only what a mode needs (the quickstart is not the test
-- kit), and tools/bench installs nothing unless asked and names the peer it compares with.
local h = require("helpers")

local root = h.root
local function tool(name) return h.q(root .. "/tools/" .. name) end

-- A PATH whose package managers only write down that they were called (and fail): whatever a
-- tool tries to install shows in the log instead of on the machine.
local function stub_installers()
  local dir = h.tmpdir() .. "/stub-installers"
  local log = dir .. "/called"
  h.sh("mkdir -p " .. h.q(dir))
  for _, name in ipairs({ "apt-get", "apt", "sudo", "pip", "pip3", "go" }) do
    local path = h.write("stub-installers/" .. name, string.format("#!/bin/sh\necho %s \"$@\" >>%s\nexit 1\n", name, h.q(log)))
    h.sh("chmod +x " .. h.q(path))
  end
  return "PATH=" .. h.q(dir) .. ":$PATH ", log
end

describe("tools/build", function()
  it("says each step, and shows why configuring failed", function()
    local dir = h.tmpdir() .. "/build-bad-option"
    local out, rc = h.sh(tool("build") .. " " .. h.q(dir) .. " -Dno_such_option=1")
    assert.are.equal(1, rc, out)
    assert.is_truthy(out:find("tools/build: configuring " .. dir .. "/ (meson setup -Dno_such_option=1)...", 1, true), out)
    -- meson's own reason, which was thrown away with its output
    assert.is_truthy(out:find('ERROR: Unknown options: "no_such_option"', 1, true), out)
    assert.is_truthy(out:find("tools/build: configuring " .. dir .. "/ failed", 1, true), out)
  end)

  it("says so when there is nothing to build", function()
    local build = assert(os.getenv("LB_BUILD_ROOT"))
    local out, rc = h.sh(tool("build") .. " " .. h.q(build))
    assert.are.equal(0, rc, out)
    assert.is_truthy(out:find("tools/build: " .. build .. "/ is up to date", 1, true), out)
  end)
end)

describe("tools/install-deps", function()
  local function list(mode)
    local out, rc = h.sh(tool("install-deps") .. " " .. mode .. " --list")
    assert.are.equal(0, rc, out)
    local set, n = {}, 0
    for p in out:gmatch("[^\n]+") do set[p], n = true, n + 1 end
    return set, n
  end

  it("--quickstart lists what building and a PostgreSQL run need, not the test kit", function()
    local quick, n = list("--quickstart")
    for _, p in ipairs({ "gcc", "luajit", "libluajit-5.1-dev", "meson", "ninja-build", "pkg-config",
      "libcjson-dev", "libpq-dev", "postgresql" }) do
      assert.is_true(quick[p], p)
    end
    for _, p in ipairs({ "chromium", "clang", "redis-server", "mariadb-server", "lua-busted", "sysbench",
      "fio", "mbw", "golang-go" }) do
      assert.is_nil(quick[p], p)
    end
    local full, nfull = list("")
    assert.is_true(full.chromium and full["redis-server"] and full["lua-busted"])
    assert.is_true(n <= 16 and nfull > 2 * n, n .. " of " .. nfull)
    local bench = list("--bench")
    assert.is_true(bench.iperf3 and bench.sockperf and bench.chromium)
    -- tools/quickstart installs in that mode
    assert.is_truthy(h.read(root .. "/tools/quickstart"):find("\n./tools/install%-deps %-%-quickstart\n"))
  end)

  it("refuses an unknown argument", function()
    local out, rc = h.sh(tool("install-deps") .. " --quick")
    assert.are.equal(2, rc)
    assert.is_truthy(out:find("install-deps: unknown argument --quick (--quickstart, --bench, --list)", 1, true), out)
  end)
end)

describe("tools/bench", function()
  it("installs nothing unasked: a missing peer is one line saying how to get it", function()
    local path, log = stub_installers()
    local opt = h.tmpdir() .. "/no-opt"
    local out, rc = h.sh(path .. "LB_OPT_DIR=" .. h.q(opt) .. " LUABENCH=" .. h.q(h.bin) .. " " .. tool("bench") .. " duckdb")
    assert.are.equal(1, rc, out)
    assert.is_truthy(out:find("bench duckdb: DuckDB's CLI or tpchgen-cli is not installed in " .. opt .. "/venv: run tools/bench duckdb --install", 1, true), out)
    assert.is_nil(h.read(log), "something was installed: " .. tostring(h.read(log)))
    assert.is_truthy(out:find("vs DuckDB's own CLI", 1, true), out)
  end)

  it("names the peer it compares with: mbw for mbw", function()
    if h.sh("command -v mbw") == "" then
      assert.is_nil(os.getenv("CI") == "true" and "mbw is not installed (tools/install-deps)" or nil)
      pending("mbw is not installed")
      return
    end
    local path, log = stub_installers()
    local out, rc = h.sh(path .. "LUABENCH=" .. h.q(h.bin) .. " " .. tool("bench") .. " mbw --runs=1 --mib=1 --loops=1")
    assert.are.equal(0, rc, out)
    local first = out:match("luabench [^\n]+")
    assert.is_truthy(first and first:find(" vs mbw %d"), out)
    assert.is_falsy(first:find("sysbench", 1, true), first)
    assert.is_truthy(out:find("| memcpy 1 MiB vs mbw -t", 1, true), out)
    assert.is_nil(h.read(log), "something was installed: " .. tostring(h.read(log)))
  end)
end)
