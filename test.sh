#!/usr/bin/env bash
# Runs every test of every module in go.work: vet, the unit and end-to-end
# tests, and the race detector on the packages that start goroutines.
set -euo pipefail
cd "$(dirname "$0")"
modules=$(go list -m -f '{{.Dir}}')
for dir in $modules; do
  echo "== $(basename "$dir")"
  (cd "$dir" && go vet ./... && go test -count=1 ./...)
done
echo "== race"
go test -count=1 -race ./policy/... ./produce/...
(cd mcp && go test -count=1 -race ./adapter/...)
