#!/bin/sh
# Every header under src/ compiles on its own (it includes what it uses), with the project's
# warnings as errors, and its include guard follows its path (src/engine/session.h:
# LB_ENGINE_SESSION_H). Args: the C compiler, the source root, the build root, extra flags.
cc=$1; src=$2; build=$3; shift 3
n=0; bad=0
for h in $(cd "$src/src" && find . -name '*.h' | sed 's|^\./||' | sort); do
  n=$((n + 1))
  # LB_HEADERS_SKIP: headers or folders (ending in /) whose library the build left out.
  case " ${LB_HEADERS_SKIP:-} " in *" $h "*|*" ${h%/*}/ "*)
    echo "ok $n - $h # SKIP its library is not built in"; continue ;;
  esac
  guard="LB_$(echo "${h%.h}" | tr 'a-z/' 'A-Z_')_H"
  if ! grep -q "^#ifndef $guard\$" "$src/src/$h"; then
    echo "not ok $n - $h: its include guard is not $guard"
    bad=$((bad + 1))
    continue
  fi
  if out=$(printf '#include "%s"\n' "$h" | "$cc" -x c -std=c11 -D_GNU_SOURCE -fsyntax-only \
      -Wall -Wextra -Werror -Wno-unused-function -Wno-unused-parameter \
      -I"$src/src" -I"$src/src/db" -I"$src/src/io" -I"$build" "$@" - 2>&1); then
    echo "ok $n - $h"
  else
    echo "not ok $n - $h"
    echo "$out" | sed 's/^/# /'
    bad=$((bad + 1))
  fi
done
echo "1..$n"
[ "$bad" -eq 0 ]
