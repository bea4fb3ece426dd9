-- The text report, line for line, against sysbench 1.0.20 (/usr/bin/sysbench): users parse it
-- with grep | cut, so blank lines and column positions matter. Both programs run with the
-- same arguments; numbers are volatile, so each line is compared with its numbers replaced by
-- "N", and every number that sits in a padded column (after two or more spaces) must start or
-- end in the same column (left- or right-aligned fields).
local h = require("helpers")

local function have_sysbench()
  local p = io.popen("command -v sysbench 2>/dev/null")
  local path = p:read("*l")
  p:close()
  return path ~= nil and path ~= ""
end

local function lines_of(out)
  local t = {}
  for l in (out .. "\n"):gmatch("([^\n]*)\n") do t[#t + 1] = l end
  if t[#t] == "" then t[#t] = nil end -- the split's own empty tail
  return t
end

-- Runs the two commands side by side (the suite's time), each with stderr merged into stdout
-- (what a terminal shows; sysbench prints FATAL on stdout); returns both outputs' lines.
local function run_both(cmd_a, cmd_b)
  local dir = h.tmpdir()
  os.execute(string.format("(%s) >%s/a.out 2>&1 & (%s) >%s/b.out 2>&1; wait", cmd_a, dir, cmd_b, dir))
  return lines_of(h.read(dir .. "/a.out") or ""), lines_of(h.read(dir .. "/b.out") or "")
end

local function normalise(lines)
  local res = {}
  for i, l in ipairs(lines) do
    local text = l:gsub("%d[%d.]*", "N")
    local keep = i > 1 -- the version banner differs by design
      and not l:match("^%s+[%d.]+ |") -- histogram rows depend on the measured latencies
    -- Whether the last partial interval is reported races with the end of the run in both.
    if keep and text:match("^%[ Ns %] ") and res[#res] and res[#res].text == text then
      keep = false
    end
    if keep then
      local cols = {}
      for s, e in l:gmatch("  ()%d[%d.]*()") do cols[#cols + 1] = { s, e - 1 } end
      res[#res + 1] = { line = l, text = text:gsub(" +", " "), cols = cols }
    end
  end
  return res
end

local function compare(args)
  local sb_lines, lb_lines = run_both("sysbench " .. args, h.bin .. " " .. args .. " --system-stats=off")
  local sb, lb = normalise(sb_lines), normalise(lb_lines)
  local function dump(t)
    local s = {}
    for i, l in ipairs(t) do s[i] = l.line end
    return table.concat(s, "\n")
  end
  local ctx = "\n--- sysbench " .. args .. ":\n" .. dump(sb) .. "\n--- luabench:\n" .. dump(lb)
  for i = 1, math.max(#sb, #lb) do
    local a, b = sb[i], lb[i]
    assert(a and b, "line counts differ (" .. #sb .. " vs " .. #lb .. ")" .. ctx)
    -- sysbench's duplicate-line suppression turns a second consecutive empty log line (the
    -- generic report's first line after a checkpoint's last one) into this notice.
    local folded_blank = a.text == "(last message repeated N times)" and b.text == ""
    assert(a.text == b.text or folded_blank, string.format("line %d differs:\n  sysbench: %q\n  luabench: %q%s",
      i, a.line, b.line, ctx))
    assert(#a.cols == #b.cols, string.format("line %d: padded columns differ:\n  %q\n  %q", i, a.line, b.line))
    for k, c in ipairs(a.cols) do
      local d = b.cols[k]
      assert(c[1] == d[1] or c[2] == d[2], string.format(
        "line %d: a value is out of sysbench's column:\n  sysbench: %q\n  luabench: %q", i, a.line, b.line))
    end
  end
end

describe("report layout matches sysbench 1.0.20", function()
  if not have_sysbench() then
    if os.getenv("CI") == "true" then
      error("sysbench is not installed (tools/install-deps installs it)")
    end
    pending("sysbench is not installed")
    return
  end
  local empty = h.q(h.write("empty.lua", "function event() end\n"))
  local slow = h.q(h.write("slow.lua", "ffi.cdef('int usleep(unsigned int);')\n" ..
    "function event() ffi.C.usleep(3000000) end\n"))

  local cases = {
    "cpu --time=1 run",
    "cpu --time=2 --report-interval=1 run",
    "cpu --events=50 --time=0 run",
    "threads --time=1 run",
    "threads --time=2 --report-interval=1 run",
    "mutex --mutex-locks=10000 run",
    "memory --memory-total-size=10M run",
    "memory --time=2 --report-interval=1 run",
    empty .. " --time=1 run",
    empty .. " --time=2 --report-interval=1 run",
    "cpu --time=3 --report-checkpoints=1,2 run",
    empty .. " --time=3 --report-checkpoints=1,2 run",
    "cpu --time=1 --percentile=99 run",
    "cpu --time=1 --percentile=0 run",
    "cpu --time=1 --histogram run",
    -- One thread: the order of two threads' start-up DEBUG lines is not fixed.
    "cpu --time=1 --debug run",
    empty .. " --time=1 --debug run",
    "mutex --mutex-locks=10000 --verbosity=5 run",
    "threads --time=1 --threads=2 --verbosity=4 run",
    slow .. " --time=1 --forced-shutdown=1 run",
  }
  for _, args in ipairs(cases) do
    it(args:gsub("^'[^']*/", "'"), function()
      compare(args)
    end)
  end
end)
