#!/usr/bin/env bash
# scripts/tidy-cached on a one-file compile database in a temp dir, with quell's .clang-tidy: a
# failure is printed and never cached, a clean pass is, the same inputs in another folder hit
# the cache, and a change to an included header (code or a NOLINT comment) runs the file again;
# --changed-since checks only what differs from a revision, or includes what does.
#   tidy_cached_test.sh SOURCE_DIR
set -euo pipefail
src_dir="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export QUELL_TIDY_CACHE="$tmp/cache"

fail() { echo "FAIL: $*"; echo "--- last output:"; cat "$tmp/out"; exit 1; }
# tidy DIR: runs the script there; its output goes to $tmp/out, its exit status to $rc.
tidy() {
  rc=0
  (cd "$1" && "$src_dir/scripts/tidy-cached" -p build -j 2) >"$tmp/out" 2>&1 || rc=$?
}
expect() {  # expect RC SUMMARY_PART [OUTPUT_PART]
  [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
  grep -q -- "$2" "$tmp/out" || fail "no '$2' in the output"
  [ -z "${3:-}" ] || grep -q -- "$3" "$tmp/out" || fail "no '$3' in the output"
}
# clone DIR: a project with src/quell/{a.h,a.cc} and its compile database.
clone() {
  mkdir -p "$1/src/quell" "$1/build"
  cp "$src_dir/.clang-tidy" "$1/"
  printf '[{"directory": "%s/build", "command": "c++ -I%s/src -std=c++20 -Wall -o a.o -c %s/src/quell/a.cc", "file": "%s/src/quell/a.cc"}]\n' \
    "$1" "$1" "$1" "$1" >"$1/build/compile_commands.json"
  printf '#pragma once\ninline int Answer() { return 42; }\n' >"$1/src/quell/a.h"
}
a="$tmp/one"
clone "$a"

printf '#include "quell/a.h"\nint* Null() { int* p = 0; return p; }\n' >"$a/src/quell/a.cc"
tidy "$a"; expect 1 "1 failed" "modernize-use-nullptr"
tidy "$a"; expect 1 "0 cached, 0 ran clean, 1 failed"   # a failure is not cached

printf '#include "quell/a.h"\nint* Null() { int* p = nullptr; return p; }\n' >"$a/src/quell/a.cc"
tidy "$a"; expect 0 "0 cached, 1 ran clean"
tidy "$a"; expect 0 "1 cached, 0 ran clean"

b="$tmp/two"  # the same sources in another folder: a fresh clone elsewhere
clone "$b"
cp "$a/src/quell/a.cc" "$b/src/quell/a.cc"
tidy "$b"; expect 0 "1 cached, 0 ran clean"

printf '#pragma once\ninline int Answer() { return 41 + 1; }\n' >"$a/src/quell/a.h"
tidy "$a"; expect 0 "0 cached, 1 ran clean"   # the header changed: run again

# A violation in the included header is reported (HeaderFilterRegex covers src/quell/).
printf '#pragma once\ninline int* Zero() { return 0; }\n' >"$a/src/quell/a.h"
tidy "$a"; expect 1 "1 failed" "a.h:2:.*modernize-use-nullptr"

# Comments are part of the key: taking away a NOLINT runs the file again.
printf '#pragma once\ninline int* Zero() { return 0; }  // NOLINT\n' >"$a/src/quell/a.h"
tidy "$a"; expect 0 "0 cached, 1 ran clean"
tidy "$a"; expect 0 "1 cached, 0 ran clean"
printf '#pragma once\ninline int* Zero() { return 0; }  // note\n' >"$a/src/quell/a.h"
tidy "$a"; expect 1 "1 failed" "modernize-use-nullptr"

# So is the tidy config: another check set runs the file again.
printf '#pragma once\ninline int* Zero() { return nullptr; }\n' >"$a/src/quell/a.h"
tidy "$a"; expect 0 "0 cached, 1 ran clean"
printf '\n# a comment\n' >>"$a/.clang-tidy"
tidy "$a"; expect 0 "0 cached, 1 ran clean"

# --changed-since REV: a project built with ninja (its recorded headers) in a git repository.
# Only a file that differs from REV, or includes one that does, is checked.
c="$tmp/changed"
mkdir -p "$c/src/quell" "$c/build"
cp "$src_dir/.clang-tidy" "$c/"
printf '#pragma once\ninline int Answer() { return 42; }\n' >"$c/src/quell/a.h"
printf '#include "quell/a.h"\nint A() { return Answer(); }\n' >"$c/src/quell/a.cc"
printf 'int B() { return 7; }\n' >"$c/src/quell/b.cc"
printf 'rule cxx\n  command = c++ -I%s/src -std=c++20 -MD -MF $out.d -o $out -c $in\n  depfile = $out.d\n  deps = gcc\nbuild a.o: cxx %s/src/quell/a.cc\nbuild b.o: cxx %s/src/quell/b.cc\n' \
  "$c" "$c" "$c" >"$c/build/build.ninja"
printf '[{"directory": "%s/build", "command": "c++ -I%s/src -std=c++20 -o %s.o -c %s/src/quell/%s.cc", "file": "%s/src/quell/%s.cc"},\n' \
  "$c" "$c" a "$c" a "$c" a >"$c/build/compile_commands.json"
printf ' {"directory": "%s/build", "command": "c++ -I%s/src -std=c++20 -o %s.o -c %s/src/quell/%s.cc", "file": "%s/src/quell/%s.cc"}]\n' \
  "$c" "$c" b "$c" b "$c" b >>"$c/build/compile_commands.json"
ninja -C "$c/build" >/dev/null
printf 'build/\n' >"$c/.gitignore"
git -C "$c" init -q && git -C "$c" add -A &&
  git -C "$c" -c user.name=t -c user.email=t@t commit -qm base
since() {
  rc=0
  (cd "$c" && "$src_dir/scripts/tidy-cached" -p build -j 2 --changed-since "$1") >"$tmp/out" 2>&1 || rc=$?
}
since HEAD; expect 0 "2 files unchanged since HEAD" "tidy-cached: 0 files"
printf '#pragma once\ninline int Answer() { return 41 + 1; }\n' >"$c/src/quell/a.h"
since HEAD; expect 0 "1 files unchanged since HEAD" "tidy-cached: 1 files"   # a.cc includes a.h
git -C "$c" -c user.name=t -c user.email=t@t commit -qam header
since HEAD; expect 0 "tidy-cached: 0 files"
since HEAD~1; expect 0 "tidy-cached: 1 files"           # committed since REV counts too
printf '\n# a comment\n' >>"$c/.clang-tidy"
since HEAD; expect 0 "a .clang-tidy changed" "tidy-cached: 2 files"
since 0000000000000000000000000000000000000000; expect 0 "not in this clone's history" "tidy-cached: 2 files"
echo "tidy_cached_test: passed"
