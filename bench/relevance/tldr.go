package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vivary-dev/vivary-go/scaffold"
)

// tldrWorkspace is a scaffolded workspace holding a copy of the pages.
func tldrWorkspace(root, pages string) error {
	for _, f := range scaffold.Files(filepath.Base(root), scaffold.DefaultPreset) {
		if err := write(root, f.Path, f.Content); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(pages)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(pages, e.Name()))
		if err != nil {
			return err
		}
		if err := write(root, "pages/common/"+e.Name(), string(b)); err != nil {
			return err
		}
	}
	return nil
}

// The tldr questions were written before any ranking ran over them, from
// what a person might ask, and judged against the pages' own descriptions:
// every page listed answers the question; the first is the best answer.
// Pages are names in pages/common.
var tldrQuestions = []question{
	{nl, "how do I generate a new ssh key pair for passwordless login", []string{"ssh-keygen"}},
	{nl, "which folders are using the most disk space", []string{"du", "ncdu", "dust", "gdu", "duc", "dua", "diskonaut"}},
	{nl, "find out which process has a file open", []string{"lsof"}},
	{nl, "shuffle the lines of a file randomly", []string{"shuf"}},
	{nl, "show lines that appear in both of two sorted files", []string{"comm"}},
	{nl, "wrap long lines to a fixed width", []string{"fold", "fmt"}},
	{nl, "convert a text file from latin1 to utf-8 encoding", []string{"iconv"}},
	{nl, "decode a base64 encoded string", []string{"base64", "basenc"}},
	{nl, "split a large file into smaller pieces", []string{"split"}},
	{nl, "write command output to a file and the screen at the same time", []string{"tee"}},
	{nl, "run a command every few seconds and watch its output", []string{"watch"}},
	{nl, "keep a process running after I log out of the terminal", []string{"nohup", "disown", "screen", "tmux"}},
	{nl, "rerun my tests automatically when source files change", []string{"entr", "watchexec"}},
	{nl, "show a hex dump of a binary file", []string{"xxd", "hexdump", "od", "hexyl"}},
	{nl, "remove GPS metadata from photos", []string{"exiftool", "exiv2"}},
	{nl, "extract the text from a pdf document", []string{"pdftotext"}},
	{nl, "find which commit introduced a bug", []string{"git-bisect"}},
	{nl, "temporarily save my uncommitted changes", []string{"git-stash"}},
	{nl, "apply a single commit from another branch onto the current one", []string{"git-cherry-pick"}},
	{nl, "stop a command if it runs longer than a time limit", []string{"timeout"}},
	{nl, "do arithmetic with decimals on the command line", []string{"bc", "qalc", "dc"}},
	{nl, "print a calendar for this month", []string{"cal", "gcal"}},
	{nl, "print the numbers from 1 to 100", []string{"seq"}},
	{nl, "merge lines of two files side by side", []string{"paste"}},
	{nl, "rename many files at once using a regular expression", []string{"rename", "perl-rename", "mmv"}},
	{nl, "verify the sha256 checksum of a downloaded file", []string{"sha256sum"}},
	{nl, "schedule a script to run every night", []string{"crontab", "cron"}},
	{nl, "kill all processes with a given name", []string{"pkill", "killall"}},
	{nl, "trace the network route packets take to a host", []string{"traceroute", "mtr"}},
	{nl, "look up the DNS records of a domain", []string{"dig", "nslookup", "host", "drill", "dog", "doggo"}},
	{nl, "download a file from a url", []string{"wget", "curl", "aria2c", "aria2"}},
	{nl, "copy files to a remote server over ssh", []string{"scp", "rsync", "sftp"}},
	{nl, "synchronize two directories efficiently", []string{"rsync", "unison"}},
	{nl, "count the number of lines in a file", []string{"wc"}},
	{nl, "replace text in a file with a regular expression", []string{"sed", "sd"}},
	{nl, "pretty print and query json", []string{"jq", "jello"}},
	{nl, "resize an image to a smaller size", []string{"convert", "magick", "mogrify"}},
	{nl, "cut a section out of a video", []string{"ffmpeg"}},
	{nl, "create a compressed tar archive of a directory", []string{"tar"}},
	{nl, "make a script file executable", []string{"chmod"}},

	{kw, "tar", []string{"tar"}},
	{kw, "rsync", []string{"rsync"}},
	{kw, "git stash", []string{"git-stash"}},
	{kw, "jq", []string{"jq"}},
	{kw, "ffmpeg", []string{"ffmpeg"}},
	{kw, "chmod", []string{"chmod"}},
	{kw, "ssh-keygen", []string{"ssh-keygen"}},
	{kw, "docker compose", []string{"docker-compose"}},
	{kw, "sha256sum", []string{"sha256sum"}},
	{kw, "kubectl", []string{"kubectl"}},
	{kw, "yt-dlp", []string{"yt-dlp"}},
	{kw, "crontab", []string{"crontab"}},
}
