#!/usr/bin/env bash
# The second false-positive corpus of the credential screen: the lesson
# texts of five NodeSchool workshops, pinned npm packages whose Markdown is
# written in 15 languages (English, Spanish, French, Italian, Dutch,
# Norwegian, Polish, Portuguese, Turkish, Vietnamese, Japanese, Korean,
# Russian, Ukrainian and Chinese in both scripts). It fetches each package
# with npm into a temporary folder, checks it against the pinned digest,
# unpacks it, and runs the corpus test over it, which fails when more than
# 0.1% of the notes are hidden for their content:
#
#	bench/fp-corpus.sh            # fetch, measure, remove
#	bench/fp-corpus.sh -keep DIR  # leave the notes in DIR
#	bench/fp-corpus.sh -docs      # the documentation corpora instead
#
# -docs measures, without a limit (docs show example credentials on
# purpose), rclone v1.73.0's docs/content and docker/cli v29.5.3's
# docs/reference from the Go module cache (go mod download fetches them if
# absent) and Node.js's API docs where Debian installs them, listing each
# note hidden. Nothing is written into the repository.
set -euo pipefail

# name version licence digest (npm's dist.integrity)
pins=(
	"javascripting 2.7.4 MIT sha512-qZdRGYssWBnVMKWSBYv/eqhXTlm4I7Cnusk2eJwtVxjOR2nszr/rNdlMtzgQ2gxyWKiYIBkGcOUXL3/sWTuTHw=="
	"learnyounode 4.2.2 MIT sha512-IVWt4R5/moSoOr6Bwyjsmp+m1cS9Gra4JldYXFh47zAox1J7Dm89wR2HvMR2qv+9sn5RN0RU1J57E1Bff6/4fw=="
	"makemehapi 7.1.0 BSD-3-Clause sha512-0rsXtu+xvd5IK04pGHTIu3ofD0Sv5S/I7wqfCEFB7HxDAFzvmaQEbArmBVzWt1hPGbGmC1rTHNzi3DqXLNgDgQ=="
	"expressworks 3.4.3 BSD-2-Clause sha512-aHrxIkPNYnJCWWc5d/zXet4CdQQLpU+SBFYylPTtevydSRKQi0W8uLcLY0/3DUCWtmeU8KCKIU9f7fAtC88zvg=="
	"functional-javascript-workshop 1.0.6 MIT sha512-CUMvytEgLWcdo6scI3W7L3gFFipbrzcPnxTt8Y/FV1uQYsa8UEWiJOdHJctpNhr+92AnGs/xVGlRIDPM+NATNg=="
)

keep=""
case "${1:-}" in
-h | --help)
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
-keep)
	keep="${2:?-keep needs a folder}"
	;;
-docs)
	command -v go >/dev/null || { echo "fp-corpus.sh: go is not installed" >&2; exit 1; }
	moddir() { (cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod go mod download -json "$1") | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }
	roots="$(moddir github.com/rclone/rclone@v1.73.0)/docs/content"
	roots="$roots:$(moddir github.com/docker/cli@v29.5.3+incompatible)/docs/reference"
	if [ -d /usr/share/doc/nodejs/api ]; then
		roots="$roots:/usr/share/doc/nodejs/api"
	fi
	cd "$(dirname "$0")/.."
	VIVARY_FP_CORPORA="$roots" go test ./guard -run 'TestMarkdownCorpora' -count=1 -v
	exit 0
	;;
"") ;;
*)
	echo "fp-corpus.sh: unknown argument $1 (try --help)" >&2
	exit 2
	;;
esac

for tool in npm openssl tar go; do
	command -v "$tool" >/dev/null || { echo "fp-corpus.sh: $tool is not installed" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/vivary-fpcorpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
notes="$work/notes"
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	notes=$(cd "$keep" && pwd)
fi

for pin in "${pins[@]}"; do
	read -r name version _ want <<<"$pin"
	(cd "$work" && npm pack --silent "$name@$version" >/dev/null)
	tgz="$work/$name-$version.tgz"
	got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
	if [ "$got" != "$want" ]; then
		echo "fp-corpus.sh: $name@$version does not match its pinned digest" >&2
		exit 1
	fi
	mkdir -p "$notes/$name@$version"
	tar -xzf "$tgz" -C "$notes/$name@$version"
done

cd "$(dirname "$0")/.."
VIVARY_FP_ORDINARY="$notes" go test ./guard -run 'TestMarkdownCorpora' -count=1 -v
