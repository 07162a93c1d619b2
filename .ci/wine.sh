#!/usr/bin/env bash
# Runs the tests of the packages below, built for windows/amd64, under Wine
# 8 (Debian's wine64, set up by shared/windows/run-under-wine.sh), then an
# MCP session from the TypeScript SDK client on Linux with vivary-mcp.exe
# under Wine (interop/wine.mjs). Wine is not Windows: each test skipped here
# is named, with the reason, in .ci/wine-skips.txt. Two stand-ins make Wine
# able to run the tests at all, both for these builds only:
#  - an -overlay of Go's own internal/syscall/windows/at_windows.go that
#    always takes Deleteat's fallback (FILE_DISPOSITION_INFORMATION, which
#    Wine has), since Wine 8 answers FileDispositionInformationEx with
#    "Invalid function" where Go only falls back on "not supported", so
#    every t.TempDir cleanup failed;
#  - git.exe from internal/winegit, which runs the machine's real git for
#    the Windows binary (Debian has no git.exe).
set -euo pipefail
cd "$(dirname "$0")/.."
# search and guard are not among them: they read no file and ask the
# system nothing (their tests' workspaces are read by snapshot and produce,
# which run here), so under Wine they would only repeat their Linux runs,
# slower. guard's one Windows rule (names and roots in Windows' forms) is
# a switch its Linux tests turn on (ShapeOKOn, ContainsRootOn).
# VIVARY_WINE_PACKAGES runs only the packages it names; VIVARY_WINE_ARGS
# adds flags to every test run (-test.v for each test's time, say).
read -r -a packages <<<"${VIVARY_WINE_PACKAGES:-produce snapshot mcp/adapter workspace/write workspace policy}"
shared=${VIVARY_SHARED:-../shared}
[ -d "$shared/windows" ] || shared=/work/shared
bash "$shared/windows/run-under-wine.sh" setup
wine=/usr/lib/wine/wine64
export WINEDEBUG=-all
# The tests run git themselves too (testws.Git), found on PATH.
export WINEPATH="C:\\Program Files\\Git\\cmd"
tmp=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

src=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
sed 's/if TestDeleteatFallback {/if true {/' "$src" >"$tmp/at_windows.go"
if cmp -s "$src" "$tmp/at_windows.go"; then
  echo "wine.sh: Go's Deleteat changed; the overlay no longer applies" >&2
  exit 1
fi
printf '{"Replace":{"%s":"%s"}}' "$src" "$tmp/at_windows.go" >"$tmp/overlay.json"

gitdir="${WINEPREFIX:-$HOME/.wine}/drive_c/Program Files/Git/cmd"
mkdir -p "$gitdir"
rm -f "$gitdir/git.port"
GOOS=windows GOARCH=amd64 go build -o "$gitdir/git.exe" ./internal/winegit
go build -o "$tmp/winegit" ./internal/winegit
"$tmp/winegit" -port-file "$gitdir/git.port" &
server=$!
for _ in $(seq 100); do [ -s "$gitdir/git.port" ] && break; sleep 0.1; done

# The skip list's tests of PKG: whole tests, and the parents of listed subtests.
tops() {
  awk -v p="$1" '$1 == p { split($2, n, "/"); if (!seen[n[1]]++) printf "%s%s", (k++ ? "|" : ""), n[1] }' .ci/wine-skips.txt
}
# subs PKG PARENT: the listed subtests of PARENT.
subs() {
  awk -v p="$1" -v t="$2" '$1 == p && index($2, t "/") == 1 { printf "%s%s", (k++ ? "|" : ""), substr($2, length(t) + 2) }' .ci/wine-skips.txt
}
# Every package's tests compile for Windows: test.sh's Windows vet
# type-checks them all; those below are also built and run.
# The adapter's tests run the binaries, which they build with go where it
# runs; here they are built beforehand, as the tests would build them.
# The binaries are built as released (-trimpath, no overlay), which also
# finds test.sh's Windows build in the build cache.
mkdir "$tmp/bin"
(cd mcp && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -trimpath -tags vivarytest -o "$tmp/bin/vivary-mcp.exe" ./cmd/vivary-mcp)
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -trimpath -o "$tmp/bin/create-vivary.exe" ./cmd/create-vivary
export VIVARY_TEST_PREBUILT="Z:${tmp//\//\\}\\bin"
# Fewer rounds of the freshness tests (their count is coverage, not timing).
export VIVARY_FRESHNESS_ROUNDS=10
# built PKG: where PKG's Windows test binary is built.
built() { echo "$tmp/$(echo "$1" | tr / _).test.exe"; }
# test_package PKG: runs PKG's Windows test binary, built beforehand.
test_package() {
  local pkg=$1 exe r try start names ok=true log passed_run
  exe=$(built "$pkg")
  log="$exe.log"
  # One run without every listed test, then one per parent of listed
  # subtests, without those.
  local runs=("-test.skip=^($(tops "$pkg"))\$")
  for parent in $(awk -v p="$pkg" '$1 == p && $2 ~ /\// { split($2, n, "/"); if (!seen[n[1]]++) print n[1] }' .ci/wine-skips.txt); do
    runs+=("-test.run=^$parent\$ -test.skip=^$parent\$/^($(subs "$pkg" "$parent"))\$")
  done
  for r in "${runs[@]}"; do
    echo "== wine: $pkg $r"
    # A run that fails runs again, twice at most, and only its failed
    # tests (the whole run again when it names none, as after a panic).
    # Wine is not Windows: on a busy machine it has failed a git call of a
    # test now and then (process start, pipes). A test that fails three
    # times in a row fails the package.
    try=1
    while :; do
      start=$SECONDS
      # shellcheck disable=SC2086 # r is one or two flags, VIVARY_WINE_ARGS any
      passed_run=true
      (cd "$pkg" && timeout 1200 "$wine" "$exe" -test.count=1 -test.short -test.timeout=15m $r ${VIVARY_WINE_ARGS:-}) >"$log" 2>&1 || passed_run=false
      cat "$log"
      if $passed_run; then
        echo "== wine: $pkg passed in $((SECONDS - start)) s"
        break
      fi
      if [ "$try" -eq 3 ]; then
        ok=false
        break
      fi
      try=$((try + 1))
      names=$(sed -n 's/^--- FAIL: \([^ ]*\).*/\1/p' "$log" | sort -u | paste -sd'|' -)
      if [ -n "$names" ] && [[ $r != -test.run=* ]]; then
        r="$r -test.run=^($names)\$"
      fi
      echo "== wine: $pkg FAILED in $((SECONDS - start)) s; try $try: $r"
    done
  done
  if $ok; then
    echo "pass $pkg" >>"$tmp/results"
  else
    echo "fail $pkg" >>"$tmp/results"
    echo "== wine: $pkg FAILED"
  fi
}

echo "== wine: building the tests of ${packages[*]} for windows/amd64"
for pkg in "${packages[@]}"; do
  mod=.
  if [[ $pkg == mcp/* ]]; then mod=mcp; fi
  (cd "$mod" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -overlay "$tmp/overlay.json" -o "$(built "$pkg")" "./${pkg#mcp/}")
done
# Three packages at a time, lane N taking every third package of the list
# from the Nth: produce, snapshot and the adapter lead the lanes, as the
# longest, with the short ones after them. A Wine test mostly waits (on
# Wine's server, on git through the bridge): the whole tree used 182 CPU
# seconds in 316 s of two lanes, and three lanes took 253 s where one
# took about 400. Each lane's output is shown whole at the end;
# VIVARY_WINE_LANES=1 runs the packages one after the other.
lanes=${VIVARY_WINE_LANES:-3}
touch "$tmp/results"
lane_pids=()
for ((lane = 0; lane < lanes; lane++)); do
  (
    for i in "${!packages[@]}"; do
      if [ $((i % lanes)) -eq "$lane" ]; then test_package "${packages[$i]}"; fi
    done
  ) >"$tmp/lane$lane.log" 2>&1 &
  lane_pids+=("$!")
done
for pid in "${lane_pids[@]}"; do wait "$pid" || true; done
for ((lane = 0; lane < lanes; lane++)); do cat "$tmp/lane$lane.log"; done
passed=$(grep -c '^pass ' "$tmp/results" || true)
failed=$(grep -c '^fail ' "$tmp/results" || true)
# Every package must have said how it went (a lane that died says nothing).
if [ $((passed + failed)) -ne ${#packages[@]} ]; then
  echo "== wine: $((${#packages[@]} - passed - failed)) packages never finished"
  failed=$((${#packages[@]} - passed))
fi
if [ -z "${VIVARY_WINE_PACKAGES+set}" ] || [ -n "${VIVARY_WINE_E2E:-}" ]; then
  echo "== wine: an MCP session with vivary-mcp.exe (interop/wine.mjs)"
  (cd mcp && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -trimpath -o "$tmp/vivary-mcp.exe" ./cmd/vivary-mcp)
  if node interop/wine.mjs "$wine" "$tmp/vivary-mcp.exe" examples/workspace; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "== wine: the MCP session FAILED"
  fi
fi
echo "wine: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
