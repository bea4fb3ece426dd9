-- Network counters beside the results: a known transfer over a veth pair between two network
-- namespaces (created here, always removed) shows in the run's System statistics exactly:
-- frames and bytes each way, TCP segments and retransmits.
local h = require("helpers")

local sh = h.sh

local function can_make_namespaces()
  local name = "lbprobe" .. math.random(1e6)
  local _, rc = sh("ip netns add " .. name .. " && ip netns del " .. name)
  return rc == 0
end

describe("network counters", function()
  it("are exact for a known transfer over a veth pair between two namespaces", function()
    if not can_make_namespaces() then
      assert.is_nil(os.getenv("CI") == "true" and "cannot create network namespaces (root and iproute2 needed)" or nil)
      pending("cannot create network namespaces")
      return
    end
    local id = tostring(math.random(1e5))
    local A, B, va, vb = "lbA" .. id, "lbB" .. id, "lva" .. id, "lvb" .. id
    local net = "10.251." .. math.random(0, 255)
    finally(function() os.execute("ip netns del " .. A .. " 2>/dev/null; ip netns del " .. B .. " 2>/dev/null") end)
    -- IPv6 off and static neighbours: nothing but what the test sends crosses the link (no
    -- router solicitations, no ARP). The far ends are addresses nobody has: B drops A's frames
    -- (another MAC), A drops B's packets (not its address, no forwarding), without a reply.
    local setup = table.concat({
      "set -e",
      "ip netns add " .. A, "ip netns add " .. B,
      "ip link add " .. va .. " netns " .. A .. " type veth peer name " .. vb .. " netns " .. B,
      "ip netns exec " .. A .. " sysctl -qw net.ipv6.conf.all.disable_ipv6=1",
      "ip netns exec " .. B .. " sysctl -qw net.ipv6.conf.all.disable_ipv6=1",
      "ip -n " .. A .. " link set " .. va .. " address 02:00:00:00:0a:01",
      "ip -n " .. B .. " link set " .. vb .. " address 02:00:00:00:0b:01",
      "ip -n " .. A .. " addr add " .. net .. ".1/24 dev " .. va,
      "ip -n " .. B .. " addr add " .. net .. ".2/24 dev " .. vb,
      "ip -n " .. A .. " link set " .. va .. " up", "ip -n " .. B .. " link set " .. vb .. " up",
      "ip -n " .. A .. " neigh add " .. net .. ".9 lladdr 02:00:00:00:00:09 dev " .. va .. " nud permanent",
      "ip -n " .. B .. " neigh add " .. net .. ".7 lladdr 02:00:00:00:0a:01 dev " .. vb .. " nud permanent",
    }, "\n")
    local out, rc = sh("sh -c " .. h.q(setup))
    assert.are.equal(0, rc, out)
    -- The traffic is sent from the run's one event, so all of it falls inside the measured
    -- window whatever the machine's load: A sends K datagrams of P bytes, B sends K2 of P2, and
    -- A tries one TCP connection for 1.5 s (one SYN, retransmitted as the kernel's timer says:
    -- how many times depends on when the attempt starts and ends, so the kernel's own counters,
    -- read in A before and after the run, say how many).
    local K, P, K2, P2 = 50, 100, 30, 200
    local traffic = string.format([[
timeout 10 bash -c 'for i in $(seq %d); do printf "%%%ds" "" >/dev/udp/%s.9/9; done'
ip netns exec %s timeout 10 bash -c 'for i in $(seq %d); do printf "%%%ds" "" >/dev/udp/%s.7/9; done'
timeout 1.5 bash -c 'exec 3<>/dev/tcp/%s.9/80' 2>/dev/null
]], K, P, net, B, K2, P2, net, net)
    local script = h.write("traffic.lua", string.format([[
function event() os.execute(%q) end
]], traffic))
    local json = h.tmpdir() .. "/net.json"
    local function kernel_counters()
      local snmp = sh("ip netns exec " .. A .. " cat /proc/net/snmp")
      local names, values = snmp:match("Tcp: (%u[^\n]*)\nTcp: ([^\n]*)")
      local c, vals = {}, {}
      for v in values:gmatch("%S+") do vals[#vals + 1] = tonumber(v) end
      local i = 0
      for name in names:gmatch("%S+") do i = i + 1; c[name] = vals[i] end
      for _, f in ipairs({ "tx_packets", "tx_bytes", "rx_packets", "rx_bytes" }) do
        c[f] = tonumber((sh("ip netns exec " .. A .. " cat /sys/class/net/" .. va .. "/statistics/" .. f)))
      end
      return c
    end
    local before = kernel_counters()
    out, rc = sh(string.format("ip netns exec %s timeout 60 %s %s --events=1 --time=0 --output=%s run >%s.txt 2>&1",
      A, h.q(h.bin), h.q(script), h.q(json), h.q(json)))
    local after = kernel_counters()
    assert.are.equal(0, rc, out .. (h.read(json .. ".txt") or ""))
    local kernel = {}
    for k, v in pairs(after) do kernel[k] = v - (before[k] or 0) end
    local r = h.json(h.read(json))
    local text = h.read(json .. ".txt")
    local n = r.system.net[va]
    assert.is_truthy(n, "interface " .. va .. " in " .. luabench.json.encode(r.system.net))
    local tcp = r.system.tcp
    -- what the kernel counted in A over the whole process, and nothing else crossed the link
    assert.are.same({ kernel.OutSegs, kernel.RetransSegs, kernel.tx_packets, kernel.tx_bytes,
                      kernel.rx_packets, kernel.rx_bytes },
                    { tcp.out_segs, tcp.retrans_segs, n.tx_packets, n.tx_bytes, n.rx_packets, n.rx_bytes })
    -- one SYN, and its retransmissions
    assert.are.equal(1, tcp.out_segs)
    local syns = tcp.out_segs + tcp.retrans_segs
    -- a UDP frame: 14 (Ethernet) + 20 (IPv4) + 8 (UDP) + payload; a SYN with options: 74
    assert.are.equal(K + syns, n.tx_packets)
    assert.are.equal(K * (42 + P) + syns * 74, n.tx_bytes)
    assert.are.equal(K2, n.rx_packets)
    assert.are.equal(K2 * (42 + P2), n.rx_bytes)
    assert.are.equal(0, n.rx_errors + n.tx_errors + n.tx_drops)
    assert.is_true(math.abs(n.tx_packets_per_s * r.system.interval_s - n.tx_packets) < 1e-6)
    assert.is_true(math.abs(n.rx_mib_per_s * r.system.interval_s * 1048576 - n.rx_bytes) < 1e-3)
    assert.is_nil(r.system.net.lo, "lo is down: no traffic, no line")
    -- the text block: after the disks, values at column 42, no sysbench report key in them
    local line = text:match("\n(    net " .. va .. " rx/tx %(MiB/s%):[^\n]*)")
    assert.is_truthy(line, text)
    assert.are.equal(41, #line:match("^(    net %S+ rx/tx %(MiB/s%):%s+)"), "values at column 42")
    assert.is_truthy(line:find(string.format(", drops %d/0, errors 0/0$", n.rx_drops)), line)
    local tline = text:match("\n(    tcp retransmits per sec.:[^\n]*)")
    local of = string.format("(%d of %d segments sent)", tcp.retrans_segs, tcp.out_segs)
    assert.is_truthy(tline and tline:find(of, 1, true), of .. " in " .. text)
    for _, l in ipairs({ line, tline }) do
      for _, key in ipairs({ "min:", "avg:", "max:", "total:", "events" }) do
        assert.is_falsy(l:find(key, 1, true), key .. " in " .. l)
      end
    end
  end)

  it("are in every interval and the sys: line", function()
    local out, err, rc = h.run("cpu --time=2 --report-interval=1 --report-system --format=json run")
    assert.are.equal(0, rc, err)
    local r = h.json(out)
    assert.is_table(r.system.net)
    assert.is_table(r.intervals[1].system.net)
    assert.is_number(r.system.tcp.retrans_per_s)
    local _, err2, rc2 = h.run("cpu --time=1 --report-interval=1 --report-system run")
    assert.are.equal(0, rc2, err2)
  end)

  it("stay out of the sysbench personality's report", function()
    local out, err, rc = h.run("cpu --time=1 run", { env = "LUABENCH_PERSONALITY=sysbench " })
    assert.are.equal(0, rc, err)
    assert.is_falsy(out:find("tcp retransmits", 1, true))
    assert.is_falsy(out:find("\n    net ", 1, true))
  end)
end)
