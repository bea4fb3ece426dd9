-- Server statistics (--server-stats) against the sandbox servers: the counters move with known
-- work, the monitor's own statements are left out, a setting changed between two runs is the
-- one `luabench compare` shows, a user without the monitoring privileges gets a one-line
-- warning, and the text block stays out of sysbench's grep keys. Runs alone (tests/meson.build):
-- the server's counters count every session's work, and it changes server-wide settings.
local h = require("helpers")

local root = h.root
local N = 300

local function admin(driver, sql)
  local p = io.popen(root .. "/tools/sandbox-db admin " .. driver .. " " .. h.q(sql) .. " 2>&1")
  local out = p:read("*a")
  local ok = p:close()
  assert(ok, "sandbox-db admin " .. driver .. " " .. sql .. ": " .. out)
  return (out:gsub("%s+$", ""))
end

-- Each event one transaction that inserts one row.
local SCRIPT = [[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("BEGIN")
  con:query("INSERT INTO lb_srvstats(v) VALUES (1)")
  con:query("COMMIT")
end
function thread_done() con:disconnect() end
]]

local function run_json(opts, extra)
  local script = h.write("srvstats.lua", SCRIPT)
  local json = h.tmpdir() .. "/srv." .. tostring(math.random(1e9)) .. ".json"
  local out, err, rc = h.run(h.q(script) .. " " .. opts .. " --threads=2 --events=" .. N .. " --time=0 "
    .. (extra or "") .. " --output=" .. json .. " run")
  assert.are.equal(0, rc, err .. out)
  return h.json(h.read(json)), out, err, json
end

for _, driver in ipairs(h.drivers) do
  describe("server statistics on " .. driver, function()
    local opts = h.db(driver)
    if not opts then
      it("need the sandbox server", function() pending(driver .. " sandbox not running") end)
      return
    end
    setup(function()
      h.sql(opts, "DROP TABLE IF EXISTS lb_srvstats")
      h.sql(opts, "CREATE TABLE lb_srvstats (id " .. (driver == "pgsql" and "serial" or "int auto_increment")
        .. " PRIMARY KEY, v int)")
    end)
    teardown(function() h.sql(opts, "DROP TABLE IF EXISTS lb_srvstats") end)

    it("count the run's transactions and rows, less the monitor's own statements", function()
      local r, out = run_json(opts, "--report-interval=1")
      assert.are.equal(N, r.counters.events)
      local s = assert(r.server, "a server object")
      assert.are.equal(driver, s.driver)
      assert.is_true(s.monitor_statements >= 2, "the first and last readings at least")
      if driver == "pgsql" then
        assert.is_true(s.counters.tup_inserted >= N, "tuples inserted " .. s.counters.tup_inserted)
        -- the monitor's own statements left out; a worker's connecting may add one
        assert.is_true(s.counters.xact_commit >= N and s.counters.xact_commit <= N + 2,
          "commits " .. s.counters.xact_commit .. " for " .. N .. " transactions")
        assert.is_true(s.counters.wal_bytes > 0 and s.key.log_bytes_per_transaction > 0)
        assert.is_true(s.gauges.numbackends ~= nil)
      else
        assert.are.equal(N, s.counters.Com_commit)
        assert.are.equal(N, s.counters.Com_insert)
        assert.is_true(s.counters.Handler_write >= N)
        -- every statement of the run is a question; the monitor's own are left out
        assert.is_true(s.counters.Questions >= 3 * N and s.counters.Questions <= 3 * N + 8,
          "questions " .. s.counters.Questions)
        assert.is_true(s.counters.Innodb_os_log_written > 0)
      end
      assert.is_true(s.key.commits_per_s > 0 and s.key.cache_hit_pct > 0)
      assert.is_true(next(s.settings) ~= nil, "settings")
      -- the sandbox server is local: the machine fingerprint describes its data directory's storage
      local datadir = s.settings.data_directory or s.settings.datadir
      assert.is_string(datadir)
      assert.are.equal(datadir, r.machine.storage_dir)
      assert.is_string(r.machine.storage_fs)
      assert.is_string(r.machine.storage_mount_point)
      -- the block after sysbench's, none of its lines with a key sysbench's parsers grep for
      local block = out:match("\n(Server statistics %(" .. driver .. " server.-\n)\n")
      assert.is_truthy(block, out)
      for line in block:gmatch("[^\n]+") do
        for _, key in ipairs({ "min:", "avg:", "max:", "total:", "events", "queries:", "transactions:" }) do
          assert.is_falsy(line:find(key, 1, true), "'" .. key .. "' in " .. line)
        end
      end
      assert.are.equal(41, #block:match("\n(    commits/rollbacks per sec%.: +)%d"), "values at column 42")
      -- per interval: the counters of that second, adding up to no more than the run's
      local sum = 0
      for _, iv in ipairs(r.intervals) do
        local c = iv.server and iv.server.counters
        sum = sum + (c and (c.xact_commit or c.Com_commit) or 0)
      end
      assert.is_true(#r.intervals == 0 or sum <= (s.counters.xact_commit or s.counters.Com_commit))
    end)

    -- The interval ending at the warm-up had a server window of a few ms (the window's base
    -- reading restarted the interval), so its figures were 0 and every chart dipped there.
    it("keep each interval whole across the warm-up's end, and the last one's counts", function()
      local script = h.write("srvstats.lua", SCRIPT)
      local json = h.tmpdir() .. "/srv.warm." .. tostring(math.random(1e9)) .. ".json"
      local _, err, rc = h.run(h.q(script) .. " " .. opts .. " --threads=2 --warmup-time=1 --time=2 --report-interval=1 --output=" .. json .. " run")
      assert.are.equal(0, rc, err)
      local r = h.json(h.read(json))
      assert.is_true(#r.intervals >= 3, #r.intervals .. " intervals")
      for i, iv in ipairs(r.intervals) do
        local srv = assert(iv.server, "interval " .. i .. " has server figures")
        -- a whole interval, or one marked as having no value: never a few ms read as 0
        local commits = srv.key.commits_per_s
        if type(commits) == "number" then
          assert.is_true(srv.interval_s >= 0.25 * iv.interval_s, "interval " .. i .. ": server window " .. srv.interval_s .. " s")
        end
      end
      local warm = r.intervals[1]
      assert.is_true(warm.server.interval_s >= 0.5, "the interval ending at the warm-up: " .. warm.server.interval_s .. " s")
      -- the last interval gets what the server published as the sessions ended
      local last = r.intervals[#r.intervals]
      if last.events > 0 then
        assert.is_true(type(last.server.key.commits_per_s) == "number" and last.server.key.commits_per_s > 0,
          "last interval: " .. tostring(last.server.key.commits_per_s))
      end
    end)

    -- PostgreSQL publishes a session's counts at most once a second: its commits/s ran 5-13 %
    -- above tps, with the commits of statement preparation (published after the first reading),
    -- of closing them in thread_done, and up to a second of warm-up commits published in the
    -- window. The sessions now publish before each reading, and the readings bracket the loops.
    if driver == "pgsql" then
      it("count the workload's commits only: not preparation's, deallocation's or the warm-up's", function()
        local script = h.write("srvstats_prepared.lua", [[
local con, st = nil, {}
function thread_init()
  con = sysbench.sql.driver():connect()
  for i = 1, 8 do st[i] = con:prepare("SELECT v FROM lb_srvstats WHERE id = " .. i) end
end
function event()
  con:query("BEGIN")
  st[1]:execute()
  con:query("INSERT INTO lb_srvstats(v) VALUES (2)")
  con:query("COMMIT")
end
function thread_done() for i = 1, 8 do st[i]:close() end con:disconnect() end
]])
        local json = h.tmpdir() .. "/srv.prep." .. tostring(math.random(1e9)) .. ".json"
        local _, err, rc = h.run(h.q(script) .. " " .. opts .. " --threads=2 --warmup-time=1 --time=2 --report-interval=1 --output=" .. json .. " run")
        assert.are.equal(0, rc, err)
        local r = h.json(h.read(json))
        local events, commits = r.counters.events, r.server.counters.xact_commit
        -- the events completed before the sessions published for the base reading (a monitor
        -- thread off the CPU answers late) are in the base: measured by the run itself
        local offset = r.server.window_offset_events
        assert.is_true(offset >= 0 and offset < events / 10, "offset " .. tostring(offset))
        -- an event under way at the warm-up's end commits before the window's reading (its
        -- worker publishes after it), one finishing after the end of the run is not counted:
        -- about one per thread either way (was: 8 per thread more, and up to a second of
        -- warm-up commits)
        local expected = events - offset
        assert.is_true(commits >= expected - 4 and commits <= expected + 4,
          commits .. " commits for " .. events .. " transactions, " .. offset .. " before the base reading")
      end)
    end

    -- A figure that could not be read is not available (-, null), never 0, and compare leaves it.
    it("say not available for what it could not read, and compare does not compare it", function()
      local proc = driver == "pgsql" and "postgres" or "mariadbd"
      local _, _, _, good = run_json(opts, "--db-server-name=" .. proc)
      local r, out, err, bad = run_json(opts, "--db-server-name=lb_no_such_proc")
      assert.is_truthy(err:find("no process named 'lb_no_such_proc' is running (--db-server-name)", 1, true), err)
      assert.is_truthy(out:find("\n    db server cpu usr/sys (%):           -/- (not available: no process matched --db-server-name/--db-server-pid)\n", 1, true), out)
      assert.are.equal("userdata", type(r.system.db_server.user_pct), "JSON null")
      assert.are.equal("userdata", type(r.system.db_server.system_pct))
      -- a key figure the server has no counter for is null, not left out nor 0
      local absent = driver == "pgsql" and "row_lock_waits_per_s" or "temp_bytes_per_s"
      assert.are.equal("userdata", type(r.server.key[absent]), absent)
      local text, cerr, rc = h.run("compare " .. good .. " " .. bad)
      assert.are.equal(0, rc, cerr)
      assert.is_truthy(text:find("\n  DB server CPU %% of one +[%d.]+ +%- +%-\n"), text)
    end)

    it("show the one setting changed between two runs in compare", function()
      local name, before, after, set
      if driver == "pgsql" then
        name = "synchronous_commit"
        set = function(v) admin("pgsql", "ALTER SYSTEM SET synchronous_commit = " .. v)
          admin("pgsql", "SELECT pg_reload_conf()") end
        before = admin("pgsql", "SELECT setting FROM pg_settings WHERE name = 'synchronous_commit'")
        after = before == "on" and "off" or "on"
      else
        name = "innodb_flush_log_at_trx_commit"
        set = function(v) admin("mysql", "SET GLOBAL innodb_flush_log_at_trx_commit = " .. v) end
        before = admin("mysql", "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        after = before == "1" and "2" or "1"
      end
      local _, _, _, a = run_json(opts)
      local ok, err = pcall(function()
        set(after)
        local _, _, _, b = run_json(opts)
        local out, cerr, rc = h.run("compare --format=json " .. a .. " " .. b)
        assert.are.equal(0, rc, cerr)
        local cmp = h.json(out)
        assert.are.equal(1, #cmp.settings_differ, out)
        assert.are.equal(name, cmp.settings_differ[1].name)
        assert.are.same({ before, after }, cmp.settings_differ[1].values)
        local text = h.run("compare " .. a .. " " .. b)
        assert.is_truthy(text:find("server settings that differ:\n[^\n]*\n  " .. name .. " +" .. before
          .. " +" .. after .. "\n"), text)
        assert.is_truthy(text:find("\nserver\n  commits/s "), text)
      end)
      set(before)
      if driver == "pgsql" then admin("pgsql", "ALTER SYSTEM RESET synchronous_commit") end
      assert(ok, err)
    end)

    if driver == "pgsql" then
      -- ALTER SYSTEM without a reload, and a reload of a setting that needs a restart: the
      -- values in force stay the old ones; the result says what waits and for what. Reading
      -- the configuration files (pg_file_settings) is a superuser's right, granted here.
      it("record the settings changed but not in force as pending", function()
        local ok, err = pcall(function()
          admin("pgsql", "GRANT SELECT ON pg_file_settings TO sbtest")
          admin("pgsql", "GRANT EXECUTE ON FUNCTION pg_show_all_file_settings() TO sbtest")
          admin("pgsql", "ALTER SYSTEM SET work_mem = '77MB'")
          admin("pgsql", "ALTER SYSTEM SET max_wal_senders = 7")
          admin("pgsql", "SELECT pg_reload_conf()")
          admin("pgsql", "ALTER SYSTEM SET maintenance_work_mem = '99MB'")
          local r, out, stderr = run_json(opts)
          local p = r.server.settings_pending
          assert.are.equal("99MB (not in force: needs a reload)", p.maintenance_work_mem)
          assert.are.equal("7 (not in force: needs a restart)", p.max_wal_senders)
          assert.is_nil(p.work_mem, "reloaded: in force")
          assert.are.equal("77MB", r.server.settings.work_mem)
          assert.are_not.equal("99MB", r.server.settings.maintenance_work_mem)
          local row = out:match("\n    setting not in force: +maintenance_work_mem = 99MB %(not in force: needs a reload%)\n")
          assert.is_truthy(row, out)
          assert.are.equal(42, #row:match("^\n(.-)maintenance") + 1, "the value at column 42")
          assert.is_truthy(stderr:find("WARNING: server setting max_wal_senders = 7 (not in force: needs a restart)", 1, true), stderr)
        end)
        for _, name in ipairs({ "work_mem", "max_wal_senders", "maintenance_work_mem" }) do
          admin("pgsql", "ALTER SYSTEM RESET " .. name)
        end
        admin("pgsql", "SELECT pg_reload_conf()")
        assert.is_true(ok, tostring(err))
        local r = run_json(opts)
        assert.are.same({}, r.server.settings_pending)
        -- without the right to read the files, only what waits for a restart can be seen
        admin("pgsql", "REVOKE SELECT ON pg_file_settings FROM sbtest")
        admin("pgsql", "REVOKE EXECUTE ON FUNCTION pg_show_all_file_settings() FROM sbtest")
        admin("pgsql", "ALTER SYSTEM SET max_wal_senders = 7")
        admin("pgsql", "SELECT pg_reload_conf()")
        ok, err = pcall(run_json, opts)
        admin("pgsql", "ALTER SYSTEM RESET max_wal_senders")
        admin("pgsql", "SELECT pg_reload_conf()")
        assert.is_true(ok, tostring(err))
        assert.are.equal("(not in force: needs a restart)", err.server.settings_pending.max_wal_senders)
      end)
    end

    it("warn in one line when the user lacks the monitoring privileges", function()
      local user_opts
      if driver == "pgsql" then
        admin("pgsql", "DROP ROLE IF EXISTS lb_nomon; CREATE ROLE lb_nomon LOGIN PASSWORD 'nomon-secret'")
        admin("pgsql", "GRANT ALL ON TABLE lb_srvstats TO lb_nomon; GRANT USAGE ON SEQUENCE lb_srvstats_id_seq TO lb_nomon")
        user_opts = opts:gsub("%-%-pgsql%-user=%S+", "--pgsql-user=lb_nomon"):gsub("%-%-pgsql%-password=%S+", "--pgsql-password=nomon-secret")
      else
        admin("mysql", "DROP USER IF EXISTS 'lb_nomon'@'%'; CREATE USER 'lb_nomon'@'%' IDENTIFIED BY 'nomon-secret';"
          .. " GRANT ALL ON " .. (opts:match("%-%-mysql%-db=(%S+)") or "sbtest") .. ".* TO 'lb_nomon'@'%'")
        user_opts = opts:gsub("%-%-mysql%-user=%S+", "--mysql-user=lb_nomon"):gsub("%-%-mysql%-password=%S+", "--mysql-password=nomon-secret")
      end
      local r, _, err = run_json(user_opts)
      if driver == "pgsql" then
        admin("pgsql", "REVOKE ALL ON TABLE lb_srvstats FROM lb_nomon; REVOKE ALL ON SEQUENCE lb_srvstats_id_seq FROM lb_nomon; DROP ROLE lb_nomon")
      else
        admin("mysql", "DROP USER 'lb_nomon'@'%'")
      end
      local missing = driver == "pgsql" and "pg_stat_activity sees only this user's sessions (grant pg_monitor to see all)"
        or "information_schema.INNODB_METRICS (needs PROCESS)"
      local line = "WARNING: server statistics: not readable without more privileges: " .. missing .. "\n"
      assert.are.equal(1, h.count(err, "server statistics"), err)
      assert.is_truthy(err:find(line, 1, true), err)
      -- a warning, not a failure: the rest is there
      assert.are.equal(missing, r.server.missing)
      assert.is_true(r.server.counters[driver == "pgsql" and "xact_commit" or "Com_commit"] >= N)
    end)

    if driver == "pgsql" then
      it("read the server an odbc connection reports, as its own driver would", function()
        local p = io.popen(root .. "/tools/sandbox-db env odbc-pgsql 2>&1")
        local odbc = p:read("*l") or ""
        p:close()
        if not odbc:find("--db-driver=odbc", 1, true) then
          assert(os.getenv("CI") ~= "true", "no odbc-pgsql sandbox: " .. odbc)
          pending("no odbc-pgsql: " .. odbc)
          return
        end
        local r = run_json(odbc)
        assert.are.equal("odbc", r.server.driver)
        assert.is_true(r.server.counters.tup_inserted >= N, "tuples inserted")
        assert.is_true(r.server.counters.xact_commit >= N, "commits")
        assert.is_truthy(r.server.settings.synchronous_commit)
      end)
    end

    it("stay off with --server-stats=off, and give CSV columns when on", function()
      local r, out, err = run_json(opts, "--server-stats=off")
      assert.is_nil(r.server)
      assert.is_falsy(out:find("Server statistics", 1, true))
      assert.are.equal("", err)
      -- with a transaction type: the server's columns come last, after the type's own and its
      -- errors/rollbacks/retries columns (results.md §8)
      local script = h.write("srvstats_typed.lua", "local T = luabench.stats.type('ins')\n"
        .. SCRIPT:gsub('con:query%("BEGIN"%)', 'T:begin(); con:query("BEGIN")'):gsub('con:query%("COMMIT"%)', 'con:query("COMMIT"); T:done()'))
      local csv, cerr, rc = h.run(h.q(script) .. " " .. opts .. " --threads=1 --time=2 --format=csv --report-interval=1 run")
      assert.are.equal(0, rc, cerr)
      local lines = {}
      for l in csv:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.is_truthy(lines[1]:find(",type_ins_retries_per_s,srv_commits_per_s,srv_rollbacks_per_s,srv_cache_hit_pct,", 1, true), lines[1])
      assert.is_truthy(lines[1]:find(",srv_checkpoints$"), lines[1])
      local head, first = {}, {}
      for c in (lines[1] .. ","):gmatch("([^,]*),") do head[#head + 1] = c end
      for c in (lines[2] .. ","):gmatch("([^,]*),") do first[#first + 1] = c end
      assert.are.equal(#head, #first)
      for i, c in ipairs(head) do
        if c == "srv_commits_per_s" then assert.is_true(tonumber(first[i]) > 0, lines[2]) end
      end
    end)
  end)
end
