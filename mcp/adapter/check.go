package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vivary-dev/vivary-go/reason"
)

// checkAll is `vivary-mcp … --check`: the command line a client would run,
// bound and read once per workspace without speaking MCP, so a person can
// see what the client only reports as "failed to connect". One line per
// --workspace, on stdout: the alias (when it is valid, else the argument's
// number), then "ok" with the documents read and what was left out, or
// "refused" with the first refusal and its fix. Like a startup refusal, a
// line never repeats the path. Exit 0 when every workspace was read, else 2.
func checkAll(ctx context.Context, rows []row, w io.Writer) int {
	if len(rows) > MaxWorkspaces {
		fmt.Fprintf(w, "refused: %d workspaces given; bind one to %d\n", len(rows), MaxWorkspaces)
		return reason.ExitRefused
	}
	bd := newBinder(false)
	exit := reason.ExitOK
	for i, r := range rows {
		label := fmt.Sprintf("--workspace %d", i+1)
		if ValidAlias(r.alias) {
			label = r.alias
		}
		line, ok := checkOne(ctx, bd, i+1, r)
		if !ok {
			exit = reason.ExitRefused
		}
		fmt.Fprintf(w, "%s: %s\n", label, line)
	}
	return exit
}

// checkOne binds and reads one workspace as the server's first call would.
func checkOne(ctx context.Context, bd *binder, n int, r row) (string, bool) {
	b, err := bd.bind(ctx, n, r)
	if err != nil {
		return "refused: " + err.Error(), false
	}
	defer b.Reader.Workspace().Close()
	snap, err := b.Reader.Snapshot(ctx)
	if err != nil {
		return "refused: " + refusalLine(err, b.Reader.Workspace().Root()), false
	}
	var sb strings.Builder
	noun := "documents"
	if len(snap.Docs) == 1 {
		noun = "document"
	}
	fmt.Fprintf(&sb, "ok: %d %s read", len(snap.Docs), noun)
	if !snap.Complete {
		sb.WriteString(" (incomplete)")
	}
	if len(snap.Omissions) > 0 {
		parts := make([]string, len(snap.Omissions))
		for i, o := range snap.Omissions {
			parts[i] = fmt.Sprintf("%d %s/%s", o.Count, o.Kind, o.Reason)
		}
		sb.WriteString("; left out: " + strings.Join(parts, ", "))
	}
	return sb.String(), true
}

// refusalLine is a read's refusal as its reason code and the message an
// MCP call would carry (the producer's own when it is safe to show, else
// the reason's advice).
func refusalLine(err error, root string) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	e := failureOf("", "", err, root)
	return *e.Reason + ": " + e.Message
}
