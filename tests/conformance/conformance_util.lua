-- What the differential suites (run.lua, sweep.lua, report_parser.lua) share: running a shell
-- command, reading a file, masking what varies between two runs, the documented deliberate
-- differences, and a diff of two outputs for the TAP diagnostics.
local M = {}

function M.sh(cmd)
  local p = io.popen(cmd)
  local out = p:read("*a")
  p:close()
  return out
end

function M.q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

function M.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- What legitimately varies: the working directory, decimal numbers (timings and rates, and the
-- printf padding before them, which grows with the value), a case's own pattern (lines it
-- marks as random), and positions inside sysbench's OLTP scripts (installed under
-- /usr/share/sysbench there, built in here, with other line numbers).
function M.mask(s, dir, pattern)
  s = s:gsub(dir:gsub("%p", "%%%0"), "CWD")
  if pattern then
    s = s:gsub(pattern, "\nMASKED")
    local n
    repeat s, n = s:gsub("\nMASKED\nMASKED", "\nMASKED") until n == 0
  end
  s = s:gsub("%d+%.%d+", "D"):gsub(" +D", " D"):gsub("%( D", "(D")
  s = s:gsub("/usr/share/sysbench/", ""):gsub("%f[%w_/]([%w_]+%.lua):%d+:", "%1:LINE:")
  return s
end

-- The documented deliberate differences: keys in doc/sysbench.md written as `[deliberate:key]`.
function M.documented(root)
  local documented = {}
  for key in (M.read(root .. "/doc/sysbench.md") or ""):gmatch("%[deliberate:([%w_%-]+)%]") do
    documented[key] = true
  end
  return documented
end

-- "label differs" and a unified diff for each pair {label, sysbench's, luabench's} that differs.
function M.diff(tmp, pairs_)
  local out = {}
  for _, p in ipairs(pairs_) do
    local label, a, b = p[1], p[2], p[3]
    if a ~= b then
      local fa, fb = tmp .. "/diff.a", tmp .. "/diff.b"
      local f = io.open(fa, "wb") f:write(a) f:close()
      f = io.open(fb, "wb") f:write(b) f:close()
      out[#out + 1] = string.format("%s differs (- sysbench, + luabench as sysbench):", label)
      out[#out + 1] = M.sh(string.format("diff -u %s %s | tail -n +3", M.q(fa), M.q(fb)))
    end
  end
  return table.concat(out, "\n")
end

return M
