#!/bin/sh
# tools/git-hooks/commit-msg: what it accepts and what it refuses, one TAP line each.
hook=$1/tools/git-hooks/commit-msg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
check() { # expected-rc description message
  n=$((n + 1))
  printf '%b' "$3" > "$tmp/msg"
  out=$("$hook" "$tmp/msg" 2>&1)
  rc=$?
  if [ "$rc" -eq "$1" ]; then echo "ok $n - $2"; else echo "not ok $n - $2 (rc $rc: $out)"; fail=1; fi
}
s72=$(printf '%072d' 0 | tr 0 x)
check 0 "a 72-character subject and a body" "$s72\n\nWhy it changed.\n"
check 1 "a 73-character subject" "${s72}y\n\nbody\n"
check 0 "a subject alone" "engine: a session apart from the run\n"
check 1 "no blank line after the subject" "subject\nbody straight after\n"
check 1 "an empty message" "\n\n"
check 0 "git's comment lines are not the message" "# Please enter the commit message\nsubject\n\nbody\n# more comments\n"
check 0 "72 characters that are not all ASCII" "$(printf '%070d' 0 | tr 0 x)éé\n"
echo "1..$n"
exit $fail
