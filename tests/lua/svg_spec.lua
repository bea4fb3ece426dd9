-- luabench.internal.svg: deterministic line charts, one y axis, log axes, gaps, escaping.
local svg = require("luabench.internal.svg")

local function spec(o)
  local s = { id = "t", title = "Throughput <A&B>", xlabel = "threads", ylabel = "tps",
              series = { { name = "a", points = { { 1, 10 }, { 2, 20 }, { 4, 40 } } },
                         { name = "b", points = { { 1, 5 }, { 2, nil }, { 4, 30 } } } } }
  for k, v in pairs(o or {}) do s[k] = v end
  return s
end

describe("luabench.internal.svg", function()
  it("draws the same bytes for the same chart, a polyline per series, one y axis", function()
    local a, b = svg.line_chart(spec()), svg.line_chart(spec())
    assert.are.equal(a, b)
    local n = 0
    for pts in a:gmatch('<polyline[^>]-points="([^"]*)"') do
      n = n + 1
      local count = select(2, pts:gsub("[%d.]+,[%d.]+", ""))
      assert.are.equal(n == 1 and 3 or 2, count) -- b's missing point is left out
    end
    assert.are.equal(2, n)
    assert.are.equal(1, select(2, a:gsub('class="ylabel"', "")))
    assert.truthy(a:find("Throughput &lt;A&amp;B&gt;", 1, true))
  end)

  it("puts decades on a log axis and skips values it cannot draw there", function()
    local s = svg.line_chart(spec { ylog = true, series = { { name = "p99", points = { { 1, 0.5 }, { 2, 0 }, { 4, 300 } } } } })
    assert.truthy(s:find("(log scale)", 1, true))
    for _, tick in ipairs({ ">0.1<", ">1<", ">10<", ">100<", ">1000<" }) do assert.truthy(s:find(tick, 1, true), tick) end
    local pts = s:match('<polyline[^>]-points="([^"]*)"')
    assert.are.equal(2, select(2, pts:gsub("[%d.]+,[%d.]+", "")))
  end)

  it("says when there is nothing to draw", function()
    local s = svg.line_chart(spec { series = { { name = "a", points = {} } } })
    assert.truthy(s:find("no data", 1, true))
  end)

  it("wants a log axis only for positive values spread wide", function()
    assert.is_true(svg.wants_log({ { points = { { 1, 1 }, { 2, 50 } } } }, 20))
    assert.is_false(svg.wants_log({ { points = { { 1, 1 }, { 2, 5 } } } }, 20))
    assert.is_false(svg.wants_log({ { points = { { 1, 0 }, { 2, 50 } } } }, 20))
    assert.are.equal("1500", svg.tick_label(1500))
    assert.are.equal("15k", svg.tick_label(15000))
    assert.are.equal("2M", svg.tick_label(2e6))
    assert.are.equal("0.25", svg.tick_label(0.25))
  end)

  it("cuts a title to its chart's width, counting characters, not bytes", function()
    assert.are.equal("short", svg.fit("short", 100, 15, true))
    local long = string.rep("oltp_read_write ", 10)
    local cut = svg.fit(long, 300, 15, true)
    assert.truthy(cut:find("…$"))
    assert.is_true(svg.text_width(cut, 15, true) <= 300)
    assert.is_true(svg.text_width(cut, 15, true) > 250)
    assert.are.equal("ääää…", svg.fit("ääääääääää", svg.text_width("ääää…", 12), 12))
    local s = svg.line_chart(spec { title = long })
    local title = s:match('<text class="title"[^>]*>(.-)</text>')
    assert.is_true(svg.text_width(title, 15, true) <= svg.TITLE_PX, title)
  end)

  it("draws a dot per run, a row per label, with the median and its interval", function()
    local s = svg.dot_plot { id = "d", title = "events/s: cpu", xlabel = "events/s",
      rows = { { name = "A", values = { 100, 102, 98 }, median = 100, lo = 98, hi = 102 },
               { name = "B", values = { 130, 131 }, median = 130.5 } } }
    assert.truthy(s:find('^<svg[^>]-class="dots"'))
    assert.are.equal(5, select(2, s:gsub('<circle class="run"', "")))
    assert.are.equal(2, select(2, s:gsub('class="median"', "")))
    assert.are.equal(1, select(2, s:gsub('class="interval"', "")))
    assert.truthy(s:find('data-series="B"', 1, true))
    assert.truthy(svg.dot_plot { rows = { { name = "A", values = {} } } }:find("no data", 1, true))
  end)
end)
