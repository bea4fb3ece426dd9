-- Line charts as SVG text, with no dependency: one y axis per chart, linear or logarithmic,
-- x linear or log2 (thread counts that double), a title, a subtitle and a legend. The same
-- spec gives the same bytes (numbers are printed with fixed formats, series in given order).
--
--   svg.line_chart{ id, title, subtitle (both cut to fit the width), xlabel, ylabel, xlog2 = bool, ylog = bool,
--                   xticks = { values } (optional: label exactly these x), xmin (x axis from here),
--                   series = { { name, points = { {x, y}, ... }, dash = bool }, ... },
--                   width = 760, height = 380 }
local M = {}

M.COLORS = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
             "#17becf", "#bcbd22" }

local function esc(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end
M.escape = esc

local function num(v)
  return string.format("%.1f", v)
end

-- Tick label: short, no exponent below a billion.
function M.tick_label(v)
  if v == 0 then return "0" end
  local a = math.abs(v)
  if a >= 1e9 then return string.format("%.3g", v) end
  if a >= 1e6 then return (string.format("%.3f", v / 1e6):gsub("0+$", ""):gsub("%.$", "")) .. "M" end
  if a >= 1e4 then return (string.format("%.3f", v / 1e3):gsub("0+$", ""):gsub("%.$", "")) .. "k" end
  if a >= 1 then return (string.format("%.3f", v):gsub("0+$", ""):gsub("%.$", "")) end
  return (string.format("%.4g", v))
end

-- Ticks 0..max on a 1/2/5 grid, about n of them.
local function linear_ticks(lo, hi, n)
  local span = hi - lo
  if span <= 0 then span = math.abs(hi) > 0 and math.abs(hi) or 1 end
  local raw = span / n
  local mag = 10 ^ math.floor(math.log10(raw))
  local step = mag
  for _, f in ipairs({ 1, 2, 2.5, 5, 10 }) do
    if f * mag >= raw then step = f * mag; break end
  end
  local first = math.floor(lo / step + 1e-9) * step
  local last = math.ceil(hi / step - 1e-9) * step
  if last <= first then last = first + step end
  local ticks = {}
  local k = 0
  while first + k * step <= last + step * 1e-9 do
    ticks[#ticks + 1] = first + k * step
    k = k + 1
  end
  return ticks, first, last
end

-- Decades, and 2 and 5 inside them when the range is short.
local function log_ticks(lo, hi)
  local d0, d1 = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
  if d1 <= d0 then d1 = d0 + 1 end
  local ticks = {}
  local mults = (d1 - d0) <= 3 and { 1, 2, 5 } or { 1 }
  for d = d0, d1 do
    for _, m in ipairs(mults) do
      local v = m * 10 ^ d
      if v >= 10 ^ d0 * (1 - 1e-9) and v <= 10 ^ d1 * (1 + 1e-9) then ticks[#ticks + 1] = v end
    end
  end
  return ticks, 10 ^ d0, 10 ^ d1
end

local function data_range(series, axis, positive)
  local lo, hi
  for _, s in ipairs(series) do
    for _, p in ipairs(s.points) do
      local v = p[axis]
      if v and v == v and (not positive or v > 0) then
        lo = lo and math.min(lo, v) or v
        hi = hi and math.max(hi, v) or v
      end
    end
  end
  return lo, hi
end

-- Whether a set of values is better read on a log axis: positive, and spread over more than
-- `ratio` times (a p50 of 1 ms beside a p99 of 80 ms).
function M.wants_log(series, ratio)
  local lo, hi = data_range(series, 2, true)
  local zlo = data_range(series, 2, false)
  return lo ~= nil and zlo > 0 and hi / lo > (ratio or 20)
end

-- About how wide text is at `size` px in a sans-serif font (DejaVu/Liberation widths by kind of
-- character; bold a little wider).
local NARROW, WIDE = "[ilIjft.,;:'|!%(%)%[%] ]", "[mwMW@%%]"
local function char_em(ch)
  if #ch > 1 then return 0.6 end
  if ch:match(NARROW) then return 0.3 end
  if ch:match(WIDE) then return 0.85 end
  if ch:match("%u") then return 0.68 end
  return 0.56
end

function M.text_width(text, size, bold)
  local w = 0
  for ch in tostring(text):gmatch("[%z\1-\127\194-\244][\128-\191]*") do w = w + char_em(ch) end
  return w * size * (bold and 1.08 or 1)
end

-- The room for a line chart's title (its width less the left margin).
M.TITLE_PX = 760 - 72 - 10

-- Text cut to fit `px` pixels at `size` px: a title never runs off its chart.
function M.fit(text, px, size, bold)
  text = tostring(text or "")
  if M.text_width(text, size, bold) <= px then return text end
  local out, w = {}, M.text_width("…", size, bold)
  for ch in text:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    local cw = char_em(ch) * size * (bold and 1.08 or 1)
    if w + cw > px then break end
    out[#out + 1] = ch
    w = w + cw
  end
  return table.concat(out) .. "…"
end

-- Every run as a dot, one row per label: where each run fell, its label's median (a bar) and
-- interval (a line), on one axis.
--   svg.dot_plot{ id, title, subtitle, xlabel, rows = { { name, values = { ... }, median, lo, hi } },
--                 width = 760 }
function M.dot_plot(spec)
  local W = spec.width or 760
  local rows = spec.rows
  local ml, mr, mt, rowh = 150, 30, spec.subtitle and 58 or 40, 28
  local H = mt + #rows * rowh + 44
  local pw = W - ml - mr
  local out = {}
  local function add(x) out[#out + 1] = x end
  add(string.format('<svg xmlns="http://www.w3.org/2000/svg" class="dots" id="%s" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">',
    esc(spec.id or "dots"), W, H, W, H))
  add(string.format('<rect width="%d" height="%d" fill="#ffffff"/>', W, H))
  add(string.format('<text class="title" x="10" y="20" font-size="15" font-weight="bold">%s</text>', esc(M.fit(spec.title, W - 20, 15, true))))
  if spec.subtitle then
    add(string.format('<text class="subtitle" x="10" y="38" fill="#555555">%s</text>', esc(M.fit(spec.subtitle, W - 20, 12))))
  end
  local lo, hi
  for _, r in ipairs(rows) do
    for _, v in ipairs(r.values) do
      lo = lo and math.min(lo, v) or v
      hi = hi and math.max(hi, v) or v
    end
  end
  if not lo then
    add('<text class="nodata" x="160" y="60" fill="#aa0000">no data</text></svg>')
    return table.concat(out, "\n") .. "\n"
  end
  local pad = (hi - lo) * 0.08
  if pad == 0 then pad = math.abs(hi) * 0.05 + (hi == 0 and 1 or 0) end
  local ticks, tlo, thi = linear_ticks(lo - pad, hi + pad, 6)
  local function xp(v) return ml + (v - tlo) / (thi - tlo) * pw end
  local bottom = mt + #rows * rowh
  add('<g class="grid" stroke="#e0e0e0" stroke-width="1">')
  for _, t in ipairs(ticks) do add(string.format('<line x1="%s" y1="%d" x2="%s" y2="%d"/>', num(xp(t)), mt, num(xp(t)), bottom)) end
  add("</g>")
  add('<g class="ticks" fill="#333333">')
  for _, t in ipairs(ticks) do
    add(string.format('<text x="%s" y="%d" text-anchor="middle">%s</text>', num(xp(t)), bottom + 16, esc(M.tick_label(t))))
  end
  add("</g>")
  add(string.format('<text class="xlabel" x="%s" y="%d" text-anchor="middle">%s</text>', num(ml + pw / 2), H - 8, esc(spec.xlabel or "")))
  for i, r in ipairs(rows) do
    local color = M.COLORS[(i - 1) % #M.COLORS + 1]
    local y = mt + (i - 0.5) * rowh
    add(string.format('<text class="label" x="%d" y="%s" text-anchor="end">%s</text>', ml - 8, num(y + 4), esc(M.fit(r.name, ml - 14, 12))))
    if r.lo and r.hi then
      add(string.format('<line class="interval" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2" opacity="0.5"/>',
        num(xp(r.lo)), num(y), num(xp(r.hi)), num(y), color))
    end
    if r.median then
      add(string.format('<line class="median" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"/>',
        num(xp(r.median)), num(y - 9), num(xp(r.median)), num(y + 9), color))
    end
    add(string.format('<g class="runs" data-series="%s" fill="%s" fill-opacity="0.75">', esc(r.name), color))
    for k, v in ipairs(r.values) do
      -- runs side by side when equal: a small fixed offset by order, no randomness
      local dy = ((k - 1) % 3 - 1) * 4
      add(string.format('<circle class="run" cx="%s" cy="%s" r="4"/>', num(xp(v)), num(y + dy)))
    end
    add("</g>")
  end
  add("</svg>")
  return table.concat(out, "\n") .. "\n"
end

function M.line_chart(spec)
  local W, H = spec.width or 760, spec.height or 380
  local ml, mr, mt, mb = 72, 190, spec.subtitle and 58 or 40, 52
  local pw, ph = W - ml - mr, H - mt - mb
  local series = spec.series
  local out = {}
  local function add(s) out[#out + 1] = s end
  add(string.format('<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="%s" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">',
    esc(spec.id or "chart"), W, H, W, H))
  add(string.format('<rect width="%d" height="%d" fill="#ffffff"/>', W, H))
  add(string.format('<text class="title" x="%d" y="20" font-size="15" font-weight="bold">%s</text>', ml,
    esc(M.fit(spec.title, W - ml - 10, 15, true))))
  if spec.subtitle then
    add(string.format('<text class="subtitle" x="%d" y="38" fill="#555555">%s</text>', ml, esc(M.fit(spec.subtitle, W - ml - 10, 12))))
  end

  -- Axes' ranges.
  local xlo, xhi = data_range(series, 1, spec.xlog2)
  local ylo, yhi = data_range(series, 2, spec.ylog)
  if not xlo then
    add(string.format('<text class="nodata" x="%d" y="%d" fill="#aa0000">no data</text>', ml + 10, mt + ph / 2))
    add("</svg>")
    return table.concat(out, "\n") .. "\n"
  end
  local xt, yt
  if spec.xlog2 then
    local a, b = math.floor(math.log(xlo) / math.log(2) + 1e-9), math.ceil(math.log(xhi) / math.log(2) - 1e-9)
    if b <= a then b = a + 1 end
    xlo, xhi = 2 ^ a, 2 ^ b
  else
    if spec.xmin then xlo = math.min(spec.xmin, xlo) end
    if xhi == xlo then xlo, xhi = xlo - 1, xhi + 1 end
  end
  xt = spec.xticks
  if not xt then
    if spec.xlog2 then
      xt = {}
      local v = xlo
      while v <= xhi * (1 + 1e-9) do xt[#xt + 1] = v; v = v * 2 end
    else
      xt, xlo, xhi = linear_ticks(xlo, xhi, 8)
    end
  end
  if spec.ylog then
    yt, ylo, yhi = log_ticks(ylo, yhi)
  else
    yt, ylo, yhi = linear_ticks(math.min(0, ylo), yhi * 1.05, 6)
  end
  local function xp(x)
    local f
    if spec.xlog2 then f = (math.log(x) - math.log(xlo)) / (math.log(xhi) - math.log(xlo))
    else f = (x - xlo) / (xhi - xlo) end
    return ml + f * pw
  end
  local function yp(y)
    local f
    if spec.ylog then f = (math.log10(y) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo))
    else f = (y - ylo) / (yhi - ylo) end
    return mt + ph - f * ph
  end

  -- Grid, ticks, labels.
  add('<g class="grid" stroke="#e0e0e0" stroke-width="1">')
  for _, v in ipairs(yt) do
    add(string.format('<line x1="%d" y1="%s" x2="%d" y2="%s"/>', ml, num(yp(v)), ml + pw, num(yp(v))))
  end
  for _, v in ipairs(xt) do
    if v >= xlo and v <= xhi then
      add(string.format('<line x1="%s" y1="%d" x2="%s" y2="%d"/>', num(xp(v)), mt, num(xp(v)), mt + ph))
    end
  end
  add("</g>")
  add(string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#555555"/>', ml, mt, pw, ph))
  add('<g class="ticks" fill="#333333">')
  for _, v in ipairs(yt) do
    add(string.format('<text x="%d" y="%s" text-anchor="end">%s</text>', ml - 6, num(yp(v) + 4), esc(M.tick_label(v))))
  end
  for _, v in ipairs(xt) do
    if v >= xlo and v <= xhi then
      add(string.format('<text x="%s" y="%d" text-anchor="middle">%s</text>', num(xp(v)), mt + ph + 16, esc(M.tick_label(v))))
    end
  end
  add("</g>")
  add(string.format('<text class="xlabel" x="%s" y="%d" text-anchor="middle">%s</text>', num(ml + pw / 2), H - 12,
    esc(spec.xlabel or "")))
  add(string.format('<text class="ylabel" transform="translate(16,%s) rotate(-90)" text-anchor="middle">%s%s</text>',
    num(mt + ph / 2), esc(spec.ylabel or ""), spec.ylog and " (log scale)" or ""))

  -- Series: a polyline each (points with no value, or not positive on a log axis, are gaps
  -- left out), markers when there are few points.
  for i, s in ipairs(series) do
    local color = M.COLORS[(s.color or i - 1) % #M.COLORS + 1]
    local pts = {}
    for _, p in ipairs(s.points) do
      local x, y = p[1], p[2]
      if x and y and y == y and (not spec.ylog or y > 0) and (not spec.xlog2 or x > 0) then
        pts[#pts + 1] = num(xp(x)) .. "," .. num(yp(y))
      end
    end
    add(string.format('<polyline class="series" data-series="%s" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>',
      esc(s.name), color, s.dash and ' stroke-dasharray="6,4"' or "", table.concat(pts, " ")))
    if #pts <= 40 then
      add(string.format('<g fill="%s">', color))
      for _, p in ipairs(pts) do
        local x, y = p:match("([^,]+),(.+)")
        add(string.format('<circle cx="%s" cy="%s" r="3"/>', x, y))
      end
      add("</g>")
    end
  end

  -- Legend, right of the plot.
  add('<g class="legend">')
  for i, s in ipairs(series) do
    local color = M.COLORS[(s.color or i - 1) % #M.COLORS + 1]
    local y = mt + 8 + (i - 1) * 18
    add(string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>', ml + pw + 12, y,
      ml + pw + 36, y, color, s.dash and ' stroke-dasharray="6,4"' or ""))
    local name = s.name
    if #name > 24 then name = name:sub(1, 23) .. "…" end
    add(string.format('<text x="%d" y="%d">%s</text>', ml + pw + 42, y + 4, esc(name)))
  end
  add("</g>")
  add("</svg>")
  return table.concat(out, "\n") .. "\n"
end

return M
