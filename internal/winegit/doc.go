//go:build linux || windows

// Command winegit lets Windows test binaries under Wine run the real git of
// the Linux machine they run on: Debian has no git.exe, and Wine starts a
// Linux program detached, with no handle to wait on or pipes to read. Built
// for Windows it is git.exe, a client that sends its arguments, folder,
// environment and standard input to the server on the loopback port named
// in git.port beside it, and gives back git's output and exit code. Built
// for Linux it is that server: it runs /usr/bin/git with Windows paths
// (C:\…, Z:\…) turned into the Linux paths Wine maps them to, and the paths
// git prints turned back (C:/…, as Git for Windows prints them). It serves
// the Wine tests of .ci/wine.sh only and is never shipped.
package main

// request is one git run; response its outcome.
type request struct {
	Args  []string
	Dir   string
	Env   []string
	Stdin []byte
}

type response struct {
	Stdout, Stderr []byte
	Code           int
}
