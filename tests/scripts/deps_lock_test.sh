#!/usr/bin/env bash
# scripts/deps.sh waits for another apt/dpkg that holds the lock instead of failing.
#   deps_lock_test.sh WORK_DIR
# Fakes on PATH: dpkg-query says one package is missing, id says root, apt-get fails with
# apt's "Could not get lock" message while WORK_DIR/locked exists (removed after 3 s) and
# logs its arguments. deps.sh must wait, then install with a dpkg lock timeout.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$1"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work/bin"; cd "$work" || exit 1
cat > bin/dpkg-query <<'FAKE'
#!/bin/sh
for last; do :; done  # the package is the last argument
[ "$last" = gnuplot-nox ] && { echo "deinstall ok config-files"; exit 0; }
echo "install ok installed"
FAKE
cat > bin/id <<'FAKE'
#!/bin/sh
echo 0
FAKE
cat > bin/apt-get <<FAKE
#!/bin/sh
echo "apt-get \$*" >> "$work/apt.log"
if [ -e "$work/locked" ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1234 (apt-get)" >&2
  exit 100
fi
exit 0
FAKE
chmod +x bin/*
touch locked
(sleep 3; rm -f locked) &
PATH="$work/bin:$PATH" TAPEGRAD_APT_LOCK_TIMEOUT=30 timeout 60 "$root/scripts/deps.sh" lab > out.log 2>&1
status=$?
wait
[ $status -eq 0 ] || fail "deps.sh exited $status while another apt held the lock for 3 s: $(cat out.log)"
grep -q "waiting for it" out.log || fail "deps.sh did not say it waits for the lock: $(cat out.log)"
grep -q "^apt-get -o DPkg::Lock::Timeout=30 install .*gnuplot-nox" apt.log ||
  fail "apt-get install was not given the lock timeout: $(cat apt.log)"
[ "$(grep -c ' update' apt.log)" -ge 2 ] || fail "apt-get update was not retried: $(cat apt.log)"
echo "PASS: deps_lock"
