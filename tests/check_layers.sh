#!/bin/sh
# tools/check-layers fails on each kind of offence and passes the real tree: every rule is fed
# a small source tree that breaks it (TAP). Args: luajit, the source root.
luajit=$1; root=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0; bad=0

# A clean tree: each layer's folder with one file including what it may.
clean() {
  rm -rf "$tmp/src"; mkdir -p "$tmp/src"
  for l in util sys db io engine api bind output cli; do mkdir -p "$tmp/src/$l"; done
  printf '#include "util/util.h"\n' > "$tmp/src/engine/run.c"
  printf '#include "db_int.h"\n#include "lb_db_drivers.h"\n' > "$tmp/src/db/driver.c"
  : > "$tmp/src/db/db_int.h"; : > "$tmp/src/db/driver.h"; : > "$tmp/src/db/stmt.h"
  # A driver folder: its own header, the core's headers for drivers, util, the build's config.
  mkdir -p "$tmp/src/db/pgsql" "$tmp/src/db/mysql"
  : > "$tmp/src/db/pgsql/pgsql_int.h"; : > "$tmp/src/db/mysql/mysql_int.h"
  printf '#include "pgsql_int.h"\n#include "db/db_int.h"\n#include "db/driver.h"\n#include "util/util.h"\n#include "lb_config.h"\n' \
    > "$tmp/src/db/pgsql/pgsql.c"
  printf '#include <lua.h>\n#include "engine/engine.h"\n' > "$tmp/src/bind/vm.c"
  printf '#include "engine/result.h"\n#include "bind/vm.h"\n#include "lb_config.h"\n' > "$tmp/src/output/report.c"
  printf '#include "cli/cli.h"\n' > "$tmp/src/main.c"
}

# expect RC WHAT [FILE LINE]: checks the exit status and, for a failure, the one line naming it.
expect() {
  n=$((n + 1))
  out=$("$luajit" "$root/tools/check-layers" "$tmp/src" 2>&1); rc=$?
  if [ "$rc" -eq "$1" ] && { [ -z "$3" ] || printf '%s' "$out" | grep -q "$3"; }; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2 (exit $rc, expected $1)"; printf '%s\n' "$out" | sed 's/^/# /'
    bad=$((bad + 1))
  fi
}

clean; expect 0 "a clean tree passes"
clean; printf '#include "output/report.h"\n' >> "$tmp/src/engine/run.c"
expect 1 "an include of a layer above fails" "layer 'engine' may not use layer 'output'"
clean; printf '#include "db_int.h"\n' >> "$tmp/src/engine/run.c"
expect 1 "a bare-name include of another folder's header fails" 'includes "db_int.h" by bare name'
clean; printf '#include <lua.h>\n' >> "$tmp/src/api/sql.c"
expect 1 "lua.h outside bind fails" "only bind may use the Lua C API"
clean; printf '#include "lauxlib.h"\n' >> "$tmp/src/engine/run.c"
expect 1 "lauxlib.h by bare name outside bind fails" "only bind may use the Lua C API"
clean; printf '#include "engine/worker.h"\n' >> "$tmp/src/output/report.c"
expect 1 "output reaching into the engine beyond the result fails" "output reads the run result"
clean; mkdir -p "$tmp/src/extra"; : > "$tmp/src/extra/x.c"
expect 1 "a folder that is no layer fails" "not in a known layer"
clean; printf '#include "lb_db_drivers.h"\n' >> "$tmp/src/engine/run.c"
expect 1 "a layer's generated header elsewhere fails" 'includes "lb_db_drivers.h" by bare name'
# Driver folders: the core and the other layers reach a driver only through its ops table.
clean; printf '#include "db/stmt.h"\n' >> "$tmp/src/db/pgsql/pgsql.c"
expect 1 "a driver including a core header not meant for drivers fails" \
  "a driver folder includes only its own headers and db/driver.h"
clean; printf '#include "../stmt.h"\n' >> "$tmp/src/db/pgsql/pgsql.c"
expect 1 "a driver reaching a core header by a relative path fails" \
  "a driver folder includes only its own headers and db/driver.h"
clean; printf '#include "db/mysql/mysql_int.h"\n' >> "$tmp/src/db/pgsql/pgsql.c"
expect 1 "a driver including another driver's header fails" "a driver's headers are its folder's own (db/mysql/)"
clean; printf '#include "pgsql/pgsql_int.h"\n' >> "$tmp/src/db/driver.c"
expect 1 "the core including a driver's header fails" "a driver's headers are its folder's own (db/pgsql/)"
clean; printf '#include "db/pgsql/pgsql_int.h"\n' >> "$tmp/src/db/driver.c"
expect 1 "the core including a driver's header by its layer path fails" "a driver's headers are its folder's own"
clean; printf '#include "db/pgsql/pgsql_int.h"\n' >> "$tmp/src/engine/run.c"
expect 1 "another layer including a driver's header fails" "a driver's headers are its folder's own (db/pgsql/)"
# The real tree, as the build checks it.
n=$((n + 1))
if "$luajit" "$root/tools/check-layers" "$root/src"; then echo "ok $n - the source tree passes"
else echo "not ok $n - the source tree passes"; bad=$((bad + 1)); fi

echo "1..$n"
[ "$bad" -eq 0 ]
