#!/usr/bin/env bash
# CI step for the release archives: installs the pinned GoReleaser (a Go
# module), checks .goreleaser.yaml, builds a snapshot release with it, and
# checks what a user would download: the six archives with the three
# binaries and the README, the checksums, a binary whose --version names
# the commit, and the npm packages the release script builds from it.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Without optimisation: the build is most of this step's time (GoReleaser
# is a large program), about a third less so, and GoReleaser spends its
# time waiting on go build, not computing.
GOBIN="$work/bin" go install -gcflags='all=-N -l' github.com/goreleaser/goreleaser/v2@v2.17.0
gr="$work/bin/goreleaser"
"$gr" check
"$gr" release --snapshot --clean

fail() { echo "release snapshot: $*" >&2; exit 1; }
want="README.md create-vivary vivary vivary-mcp"
if ls LICENSE* >/dev/null 2>&1; then want="$(ls -d LICENSE* | tr '\n' ' ')$want"; fi
for os in linux darwin; do
  for arch in amd64 arm64; do
    a="vivary_${os}_${arch}.tar.gz"
    [ -f "dist/$a" ] || fail "no dist/$a"
    got=$(tar -tzf "dist/$a" | sort | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || fail "$a holds '$got', want '$want'"
    grep -q "  $a\$" dist/checksums.txt || fail "checksums.txt does not list $a"
  done
done
for arch in amd64 arm64; do
  a="vivary_windows_${arch}.zip"
  [ -f "dist/$a" ] || fail "no dist/$a"
  got=$(unzip -Z1 "dist/$a" | sort | tr '\n' ' ' | sed 's/ $//')
  wantexe=$(printf '%s\n' $want | sed -E 's/^(create-vivary|vivary|vivary-mcp)$/\1.exe/' | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$wantexe" ] || fail "$a holds '$got', want '$wantexe'"
  grep -q "  $a\$" dist/checksums.txt || fail "checksums.txt does not list $a"
done
(cd dist && sha256sum --quiet -c checksums.txt) || fail "checksums.txt does not match"

# A snapshot is a development build: (devel) and the commit, read by the Go
# toolchain from the checkout (a linked worktree, whose .git is a file, has
# no stamp), or the release tag when HEAD is tagged.
if tag=$(git describe --exact-match --tags --match 'v*' HEAD 2>/dev/null); then
  version=$(printf '%s' "$tag" | sed 's/[.]/[.]/g')
elif [ -d .git ]; then
  version="\\(devel\\) $(git rev-parse HEAD | cut -c1-12)(\\+dirty)?"
else
  version="\\(devel\\)"
fi
mkdir "$work/x"
tar -xzf dist/vivary_linux_amd64.tar.gz -C "$work/x"
for b in vivary create-vivary vivary-mcp; do
  got=$("$work/x/$b" --version)
  [[ "$got" =~ ^$b\ $version$ ]] || fail "$b --version printed '$got', want /^$b $version\$/"
done

# The README's archive one-liner, run as it is written on a fresh account
# (an empty HOME, no ~/.local/bin yet), with a curl on PATH that serves the
# snapshot's archive for the README's URL.
line=$(grep -E '^ +mkdir -p ~/.local/bin && curl -fsSL https://github.com/vivary-dev/vivary-go/releases/latest/download/' README.md) ||
  fail "README has no archive one-liner"
archive=$(printf '%s' "$line" | sed -E 's#.*/latest/download/([^ ]+) .*#\1#')
mkdir "$work/home" "$work/fakebin"
printf '#!/bin/sh\n[ "$2" = "%s" ] && exec cat "%s"\nexit 22\n' \
  "https://github.com/vivary-dev/vivary-go/releases/latest/download/$archive" "$PWD/dist/$archive" > "$work/fakebin/curl"
chmod +x "$work/fakebin/curl"
(cd "$work/home" && env -i HOME="$work/home" PATH="$work/fakebin:/usr/local/bin:/usr/bin:/bin" sh -c "$line") ||
  fail "the README's line does not unpack dist/$archive on a fresh account"
for b in vivary create-vivary vivary-mcp; do
  [ -x "$work/home/.local/bin/$b" ] || fail "the README's line does not install $b"
done

go run ./internal/release npm dist "$work/npm" v0.0.0-snapshot
for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do
  exe=
  if [[ $p == win32-* ]]; then exe=.exe; fi
  [ -x "$work/npm/@vivary/vivary-mcp-$p/bin/vivary-mcp$exe" ] || fail "no npm package for $p"
done
"$work/npm/@vivary/vivary-mcp-linux-x64/bin/vivary-mcp" --version >/dev/null
echo "release snapshot: 6 archives, checksums, --version and npm packages checked"
