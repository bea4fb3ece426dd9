-- What differs between the labels of a comparison, whatever it is: every key whose value is not
-- the same in all labels' results, from the options, the machine, the placement, the server's
-- and drivers' settings and a busy-host record. Nested objects become dotted keys
-- (machine.caches.l2_kib); nothing is named here, so a key a later luabench adds to one of these
-- objects shows up without a change. Passwords are masked.
local M = {}

-- Options that differ between any two runs by construction.
local SKIP_OPTIONS = { output = true, ["start-at"] = true }

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local function secret(name)
  return tostring(name):lower():find("password", 1, true) ~= nil
end

local function scalar_text(v)
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
    return string.format("%.6g", v)
  end
  return tostring(v)
end

-- Scalars of t as out[prefix.key] = text; arrays of scalars as one "a,b,c" value.
local function flatten(t, prefix, out)
  if type(t) ~= "table" then
    out[prefix] = scalar_text(t)
    return out
  end
  local n, scalars = #t, true
  for _, v in ipairs(t) do if type(v) == "table" then scalars = false end end
  if n > 0 and scalars then
    local parts = {}
    for i, v in ipairs(t) do parts[i] = scalar_text(v) end
    out[prefix or "(value)"] = table.concat(parts, ",")
    return out
  end
  if n == 0 and next(t) == nil then
    -- an empty object inside one (an empty source itself has nothing to tell)
    if prefix then out[prefix] = "(none)" end
    return out
  end
  for _, k in ipairs(sorted_keys(t)) do
    local name = prefix and (prefix .. "." .. tostring(k)) or tostring(k)
    if secret(k) then
      out[name] = "***"
    else
      flatten(t[k], name, out)
    end
  end
  return out
end

-- A busy-host record's verdicts (its booleans: which part of the rule held). Its figures are
-- measurements that differ from run to run, so listing them would list every busy run; they
-- go into compare's note on busy runs instead, and the CPU counts are placement's.
function M.verdicts(busy)
  local out = {}
  for k, v in pairs(busy) do
    if type(v) == "boolean" then out[k] = v end
  end
  return out
end

-- The objects of a result that may explain a difference, as { group, table } pairs: the
-- options, `machine`, `placement`, the server's settings and anything else under `server`
-- named *settings* or *pending*, top-level objects named *settings* or `driver`, and the verdicts
-- of those named *busy*.
function M.sources(doc)
  local out = {}
  if type(doc.options) == "table" then
    local o = {}
    for k, v in pairs(doc.options) do
      if not SKIP_OPTIONS[k] then o[k] = v end
    end
    out[#out + 1] = { "options", o }
  end
  for _, k in ipairs({ "machine", "placement" }) do
    if type(doc[k]) == "table" then out[#out + 1] = { k, doc[k] } end
  end
  if type(doc.server) == "table" then
    for _, k in ipairs(sorted_keys(doc.server)) do
      local v = doc.server[k]
      if type(v) == "table" and (k:find("settings", 1, true) or k:find("pending", 1, true)) then
        out[#out + 1] = { k == "settings" and "server settings" or "server " .. k, v }
      end
    end
  end
  for _, k in ipairs(sorted_keys(doc)) do
    local v = doc[k]
    if type(v) == "table" and k ~= "machine" and k ~= "placement" then
      if k:find("busy", 1, true) then
        out[#out + 1] = { k, M.verdicts(v) }
      elseif k:find("settings", 1, true) or k == "driver" then
        out[#out + 1] = { k, v }
      end
    end
  end
  return out
end

-- One label's value of a key over its runs: the value when they agree; for numbers that vary
-- (a measured frequency), the median and range; otherwise each value with its count.
local function label_text(values, n)
  local distinct, count, order = {}, {}, {}
  for _, v in ipairs(values) do
    if not count[v] then count[v] = 0; order[#order + 1] = v end
    count[v] = count[v] + 1
  end
  for _, v in ipairs(order) do distinct[#distinct + 1] = v end
  local missing = n - #values
  if #distinct == 0 then return nil end
  if #distinct == 1 and missing == 0 then return distinct[1] end
  local nums = {}
  for _, v in ipairs(values) do nums[#nums + 1] = tonumber(v) end
  if #nums == #values and missing == 0 then
    table.sort(nums)
    local k = #nums
    local med = k % 2 == 1 and nums[(k + 1) / 2] or (nums[k / 2] + nums[k / 2 + 1]) / 2
    return string.format("%s (%s..%s, %d runs)", scalar_text(med), scalar_text(nums[1]), scalar_text(nums[k]), k)
  end
  table.sort(distinct)
  local parts = {}
  for _, v in ipairs(distinct) do parts[#parts + 1] = string.format("%s x%d", v, count[v]) end
  if missing > 0 then parts[#parts + 1] = string.format("- x%d", missing) end
  return table.concat(parts, ", ")
end

-- docs_by_label: { { doc, doc, ... } per label }. Returns { { group, name, values = { text or
-- nil per label } } } for every key whose labels' texts are not all the same, by group then
-- name.
function M.rows(docs_by_label)
  local keys, seen = {}, {}
  local per_label = {}
  for i, docs in ipairs(docs_by_label) do
    per_label[i] = {}
    for _, d in ipairs(docs) do
      for _, src in ipairs(M.sources(d)) do
        local group = src[1]
        for name, text in pairs(flatten(src[2], nil, {})) do
          local key = group .. "\0" .. name
          if not seen[key] then
            seen[key] = true
            keys[#keys + 1] = { group = group, name = name, key = key }
          end
          local list = per_label[i][key] or {}
          per_label[i][key] = list
          list[#list + 1] = text
        end
      end
    end
  end
  local order = {}
  for _, s in ipairs({ "options", "machine", "placement" }) do order[s] = #order + 1; order[#order + 1] = s end
  table.sort(keys, function(a, b)
    local ga, gb = order[a.group] or 99, order[b.group] or 99
    if ga ~= gb then return ga < gb end
    if a.group ~= b.group then return a.group < b.group end
    return a.name < b.name
  end)
  local out = {}
  for _, k in ipairs(keys) do
    local values, differ = {}, false
    for i, docs in ipairs(docs_by_label) do
      values[i] = label_text(per_label[i][k.key] or {}, #docs)
      if i > 1 and values[i] ~= values[1] then differ = true end
    end
    if differ then out[#out + 1] = { group = k.group, name = k.name, values = values } end
  end
  return out
end

return M
