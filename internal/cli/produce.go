package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
)

var queryHelp = fmt.Sprintf(`Usage: vivary query --workspace DIR [flags] TEXT

Ranks the typed documents of the workspace against TEXT.

Flags:
  --workspace DIR      the workspace root (required)
  --limit N            at most N results, 1-%d (default %d)
  --type T             keep only documents of type T; repeatable, at most %d
  --path GLOB          keep only paths matching GLOB ("*" spans "/"); repeatable
  --edge FIELD[:TO]    keep only documents with such an edge; repeatable
  --snippet-chars N    snippet length, 0-%d (default %d)
  --explain            include match reasons and edges
  --json               print vivary.query-result/v0 JSON
  --version            print the version

Exit status: 0 answered, 2 usage error or refusal.
`, limits.MaxResults, limits.DefaultQueryResults, limits.MaxFilters,
	limits.MaxSnippetChars, limits.DefaultSnippetChars)

var findHelp = fmt.Sprintf(`Usage: vivary find --workspace DIR [--limit N] [--budget N] [--json] QUESTION

Selects bounded context for a task or question, filled in rank order until an
estimated token budget.

Flags:
  --workspace DIR  the workspace root (required)
  --limit N        rank at most N documents, 1-%d (default %d)
  --budget N       estimated tokens, %d-%d (default %d)
  --json           print vivary.find-result/v0 JSON
  --version        print the version

Exit status: 0 answered, 2 usage error or refusal.
`, limits.MaxResults, limits.DefaultFindResults,
	limits.MinFindBudget, limits.MaxFindBudget, limits.DefaultFindBudget)

var capsuleHelp = fmt.Sprintf(`Usage: vivary capsule --workspace DIR [--max-claims N] [--json] QUESTION

Prints the privacy-projected public Task Capsule for QUESTION: observed facts
about the workspace's checkout, with no raw evidence and no commands run. Save
the JSON to bind a later 'create-vivary record --capsule'.

Flags:
  --workspace DIR   the workspace root (required)
  --max-claims N    at most N claims, 0-%d (default %d)
  --json            print vivary.public-task-capsule/v0 JSON
  --version         print the version

Exit status: 0 answered, 2 usage error or refusal.
`, limits.MaxClaims, limits.DefaultClaims)

// runProducer is the shared shape of the three text commands: the
// command's own flags are already defined; call asks the producer and
// returns the result and how to print it for a person.
func runProducer(c *call, call func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error)) int {
	dir := workspaceFlag(c)
	pos, exit, ok := c.parse()
	if !ok {
		return exit
	}
	text := strings.Join(pos, " ")
	if text == "" {
		return c.usage("a text argument is required: %s --workspace DIR [flags] TEXT", c.prog)
	}
	ws, err := bind(*dir)
	if err != nil {
		return c.fail(err)
	}
	defer ws.Close()
	ctx, cancel := signalContext()
	defer cancel()
	ctx, quiet := c.progress(ctx)
	defer quiet()
	res, human, err := call(ctx, produce.NewReader(ws), text)
	quiet()
	if err != nil {
		return c.fail(err)
	}
	if *c.asJSON {
		if err := writeJSON(c.stdout, res); err != nil {
			return c.fail(err)
		}
	} else {
		human(c.stdout)
	}
	return ExitOK
}

func typeName(t *string) string {
	if t == nil {
		return "untyped"
	}
	return *t
}

func runQuery(c *call) int {
	limit := c.fs.Int("limit", limits.DefaultQueryResults, "")
	snippet := c.fs.Int("snippet-chars", limits.DefaultSnippetChars, "")
	explain := c.fs.Bool("explain", false, "")
	var types, paths, edges multi
	c.fs.Var(&types, "type", "")
	c.fs.Var(&paths, "path", "")
	c.fs.Var(&edges, "edge", "")
	return runProducer(c, func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error) {
		res, err := r.Query(ctx, produce.QueryArgs{Text: text, Limit: *limit, SnippetChars: *snippet, Explain: *explain,
			Filters: produce.Filters{Type: types, Path: paths, Edge: edges}, Spelling: produce.Flags})
		if err != nil {
			return nil, nil, err
		}
		// A --type the policy does not define is almost always a typo.
		for _, t := range res.UnknownTypes {
			fmt.Fprintf(c.stderr, "vivary query: --type %s is not a type of the workspace policy; the known types are %s\n",
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

func runFind(c *call) int {
	limit := c.fs.Int("limit", limits.DefaultFindResults, "")
	budget := c.fs.Int("budget", limits.DefaultFindBudget, "")
	return runProducer(c, func(ctx context.Context, r *produce.Reader, text string) (any, func(io.Writer), error) {
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
