package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
)

func init() {
	extraCommands = append(extraCommands,
		command{"query", runQuery},
		command{"find", runFind},
		command{"capsule", runCapsule},
	)
}

const queryHelp = `Usage: vivary query --workspace DIR [flags] TEXT

Ranks the typed documents of the workspace against TEXT.

Flags:
  --workspace DIR      the workspace root (required)
  --limit N            at most N results, 1-20 (default 10)
  --type T             keep only documents of type T; repeatable, at most 16
  --path GLOB          keep only paths matching GLOB ("*" spans "/"); repeatable
  --edge FIELD[:TO]    keep only documents with such an edge; repeatable
  --snippet-chars N    snippet length, 0-1000 (default 160)
  --explain            include match reasons and edges
  --json               print vivary.query-result/v0 JSON

Exit status: 0 answered, 2 usage error or refusal.
`

const findHelp = `Usage: vivary find --workspace DIR [--limit N] [--budget N] [--json] QUESTION

Selects bounded context for a task or question, filled in rank order until an
estimated token budget.

Flags:
  --workspace DIR  the workspace root (required)
  --limit N        rank at most N documents, 1-20 (default 5)
  --budget N       estimated tokens, 64-4000 (default 1200)
  --json           print vivary.find-result/v0 JSON

Exit status: 0 answered, 2 usage error or refusal.
`

const capsuleHelp = `Usage: vivary capsule --workspace DIR [--max-claims N] [--json] QUESTION

Prints the privacy-projected public Task Capsule for QUESTION: observed facts
about the workspace's checkout, with no raw evidence and no commands run. Save
the JSON to bind a later 'create-vivary record --capsule'.

Flags:
  --workspace DIR   the workspace root (required)
  --max-claims N    at most N claims, 0-24 (default 24)
  --json            print vivary.public-task-capsule/v0 JSON

Exit status: 0 answered, 2 usage error or refusal.
`

// runProducer is the shared shape of the three text commands.
func runProducer(name, help string, args []string, stdout, stderr io.Writer,
	define func(fs flagSet), call func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error)) int {
	prog := "vivary " + name
	fs := newFlags(name, help, stderr)
	dir := bindFlag(fs)
	asJSON := fs.Bool("json", false, "")
	define(fs)
	pos, done, err := parse(fs, args, help, stdout)
	if done || err != nil {
		if err != nil {
			return fail(prog, err, false, stdout, stderr)
		}
		return ExitOK
	}
	text := strings.Join(pos, " ")
	if text == "" {
		return fail(prog, &usageError{"a text argument is required: " + prog + " --workspace DIR [flags] TEXT"}, false, stdout, stderr)
	}
	ws, err := bind(*dir)
	if err != nil {
		return fail(prog, err, *asJSON, stdout, stderr)
	}
	defer ws.Close()
	ctx, cancel := signalContext()
	defer cancel()
	res, human, err := call(ctx, produce.NewReader(ws), text)
	if err != nil {
		return fail(prog, err, *asJSON, stdout, stderr)
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			return fail(prog, err, false, stdout, stderr)
		}
	} else {
		human(stdout)
	}
	return ExitOK
}

type flagSet = *flag.FlagSet

func typeName(t *string) string {
	if t == nil {
		return "untyped"
	}
	return *t
}

func runQuery(args []string, stdout, stderr io.Writer) int {
	var limit, snippet *int
	var explain *bool
	var types, paths, edges multi
	return runProducer("query", queryHelp, args, stdout, stderr, func(fs flagSet) {
		limit = fs.Int("limit", 10, "")
		snippet = fs.Int("snippet-chars", limits.DefaultSnippetChars, "")
		explain = fs.Bool("explain", false, "")
		fs.Var(&types, "type", "")
		fs.Var(&paths, "path", "")
		fs.Var(&edges, "edge", "")
	}, func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error) {
		res, err := r.Query(ctx, produce.QueryArgs{Text: text, Limit: *limit, SnippetChars: *snippet, Explain: *explain,
			Filters: produce.Filters{Type: types, Path: paths, Edge: edges}})
		if err != nil {
			return nil, nil, err
		}
		// A --type the policy does not define is almost always a typo.
		for _, t := range res.UnknownTypes {
			fmt.Fprintf(stderr, "vivary query: --type %s is not a type of the workspace policy; the known types are %s\n",
				t, strings.Join(res.KnownTypes, ", "))
		}
		return res, func(w io.Writer) {
			if len(res.Results) == 0 {
				fmt.Fprintln(w, "no matches")
			}
			for _, h := range res.Results {
				fmt.Fprintf(w, "%4d  %s  [%s] %s\n", h.Score, h.Path, typeName(h.Type), h.Title)
				if h.Snippet != nil {
					fmt.Fprintf(w, "      %s\n", *h.Snippet)
				}
				if len(h.Reasons) > 0 {
					fmt.Fprintf(w, "      reasons: %s\n", strings.Join(h.Reasons, ", "))
				}
				for _, e := range h.Edges {
					fmt.Fprintf(w, "      %s -> %s\n", e.Field, e.To)
				}
			}
			printOmissions(w, res.Complete, res.Omissions)
		}, nil
	})
}

func runFind(args []string, stdout, stderr io.Writer) int {
	var limit, budget *int
	return runProducer("find", findHelp, args, stdout, stderr, func(fs flagSet) {
		limit = fs.Int("limit", 5, "")
		budget = fs.Int("budget", limits.DefaultFindBudget, "")
	}, func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error) {
		res, err := r.Find(ctx, produce.FindArgs{Question: text, Limit: *limit, Budget: *budget})
		if err != nil {
			return nil, nil, err
		}
		return res, func(w io.Writer) {
			if len(res.Results) == 0 {
				fmt.Fprintln(w, "no matches")
			}
			for _, h := range res.Results {
				fmt.Fprintf(w, "%s  [%s] %s\n", h.Path, typeName(h.Type), h.Reason)
				if h.Snippet != nil {
					fmt.Fprintf(w, "  %s\n", *h.Snippet)
				}
			}
			fmt.Fprintf(w, "estimated tokens: %d of %d\n", res.EstimatedTokens, res.Budget)
			printOmissions(w, res.Complete, res.Omissions)
		}, nil
	})
}
