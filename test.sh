#!/usr/bin/env bash
# Runs every test of every module in go.work: gofmt, vet, the unit and end-to-end
# tests, the race detector on the packages that start goroutines, and the
# interop check that drives vivary-mcp with the TypeScript SDK clients and
# real hosts. internal/release's tests install the three binaries from a
# file module proxy and vivary-mcp through its npm launcher, offline.
# ./test.sh --stress [RUNS] [--freshness] instead runs the packages with
# timing-sensitive tests RUNS times in a row (3 by default) on a machine it
# saturates itself; --freshness limits every run to the freshness tests,
# VIVARY_STRESS_RUN to any other `go test -run` pattern.
set -euo pipefail
cd "$(dirname "$0")"

if [ "${1:-}" = "--stress" ]; then
  shift
  runs=3
  if [ -n "${1:-}" ] && [ "$1" != "--freshness" ]; then
    runs=$1
    shift
  fi
  pattern=${VIVARY_STRESS_RUN:-}
  if [ "${1:-}" = "--freshness" ]; then
    # A change that completed before a call is in its answer, by the feed,
    # by stat and through every fallback between them.
    pattern='^(TestWriteThenCallAgreesWithAFreshSnapshot|TestFeedFreshnessIsConstant|TestFallback.*|TestFreshness.*|TestUpdatedIndexAnswersAsAFreshOne)$'
    shift
  fi
  if [ $# -gt 0 ] || ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: ./test.sh --stress [RUNS] [--freshness]" >&2
    exit 2
  fi
  only=()
  if [ -n "$pattern" ]; then only=(-run "$pattern"); fi
  # 2 x nproc busy loops, killed by pid however the script ends.
  hogs=()
  stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
  }
  trap stop_hogs EXIT
  trap 'exit 130' INT TERM
  for _ in $(seq $((2 * $(nproc)))); do
    (while :; do :; done) &
    hogs+=("$!")
  done
  start=$SECONDS
  for run in $(seq "$runs"); do
    echo "== stress run $run of $runs (${#hogs[@]} busy loops, load $(cut -d' ' -f1-3 /proc/loadavg))${pattern:+, only $pattern}"
    # The freshness tests' round count is coverage, not timing: fewer here.
    VIVARY_FRESHNESS_ROUNDS=40 go test -count=1 -race "${only[@]}" ./capsule/... ./policy/... ./produce/... ./search/... ./snapshot/... ./workspace/...
    go test -count=1 "${only[@]}" ./internal/cli/...
    (cd mcp && go test -count=1 -race "${only[@]}" ./adapter/...)
  done
  echo "== stress: $runs of $runs runs passed in $((SECONDS - start)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  exit 0
fi
# The npm launcher test (internal/release) uses interop's Claude Code too.
if [ ! -d interop/node_modules ] || [ interop/package-lock.json -nt interop/node_modules/.package-lock.json ]; then
  (cd interop && npm ci --no-audit --no-fund --loglevel=error)
fi
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need gofmt -w:" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "== staticcheck (pinned) (at ${SECONDS} s)"
for dir in $(go list -m -f '{{.Dir}}'); do
  (cd "$dir" && go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...)
done
# The packages that start goroutines run once, under the race detector;
# every other package runs once without it (a second plain run of the same
# tests would only repeat them).
race='/(capsule|policy|produce|snapshot|workspace|search)(/|$)'
echo "== vet (at ${SECONDS} s)"
go vet ./...
go vet -tags vivary_faults ./cmd/create-vivary # the crash-test build, else never compiled
(cd mcp && go vet ./...)
echo "== tests (at ${SECONDS} s)"
go test -count=1 $(go list ./... | grep -Ev "$race")
echo "== tests under the race detector (at ${SECONDS} s)"
go test -count=1 -race $(go list ./... | grep -E "$race")
(cd mcp && go test -count=1 -race ./...)

# With the release archives' flags (CGO off, -trimpath, as .goreleaser.yaml
# builds them), so CI's release snapshot after this finds these packages
# compiled in the build cache instead of compiling them a second time.
echo "== portability (macOS build) (at ${SECONDS} s)"
GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go build -trimpath ./...
(cd mcp && GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go build -trimpath ./...)
echo "== portability (Windows build and vet) (at ${SECONDS} s)"
for arch in amd64 arm64; do
  GOOS=windows GOARCH=$arch CGO_ENABLED=0 go build -trimpath ./...
  (cd mcp && GOOS=windows GOARCH=$arch CGO_ENABLED=0 go build -trimpath ./...)
done
GOOS=windows CGO_ENABLED=0 go vet -trimpath ./...
(cd mcp && GOOS=windows CGO_ENABLED=0 go vet -trimpath ./...)

echo "== interop (TypeScript SDK clients) (at ${SECONDS} s)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/vivary-mcp" ./mcp/cmd/vivary-mcp
go build -tags vivarytest -o "$tmp/vivary-mcp-test" ./mcp/cmd/vivary-mcp # holds an answer, for the progress check
cp -r examples/workspace "$tmp/ws"
node interop/drive.mjs "$tmp/vivary-mcp" "$tmp/ws" "$tmp/vivary-mcp-test"
echo "== interop (Claude Code and Gemini CLI, configured from the README) (at ${SECONDS} s)"
node interop/hosts.mjs README.md "$tmp" "$tmp/ws"
