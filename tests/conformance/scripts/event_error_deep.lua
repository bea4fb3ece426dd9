-- An error two calls deep inside event(): with --debug sysbench prints no traceback
local function inner(x)
  local t = nil
  return t.field + x
end
local function outer(x)
  return inner(x) + 1
end
function event()
  outer(1)
end
