package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports/view"
)

const viewUsage = `Usage: murmur-eval view RUN [BASELINE_RUN] -o DIR
       murmur-eval view RUN [BASELINE_RUN] --serve ADDR

Writes a static site over a finished run, read from its run folder (its
Parquet files and its sessions/): DIR/index.html lists every case with
its status, scores and the failing scorers' reasons, filterable by status,
scorer and text and sortable by duration and tokens; DIR/cases/<case>.html
shows one case, each epoch and attempt in a section: the task, each turn's
answer, the tool calls with their inputs and outputs, hook and denial
events, the final answer, every score with its reason, the workspace
diff, the time per stage, the tokens, and links to the session's raw
files. The pages work from file:// (a CI artifact, GitHub Pages): styles
and the index's small script inline, nothing fetched. Long texts are
folded and cut at 64 KiB, with a link to the raw file.

With BASELINE_RUN, a case whose verdict flipped (passed in one run,
failed in the other) shows both transcripts side by side, turn by turn,
the first turn whose request, answer or tool output differs marked and
said at the top.

--serve ADDR serves the site instead of writing it (pages rendered when
asked for, the runs' files as plain text), until interrupted.

Exit codes: 0 written (or served); 1 a page could not be written; 2 usage
error or a run that cannot be read.

Flags:
`

// runView is the view command.
func runView(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var out, addr string
	fs := pflag.NewFlagSet("murmur-eval view", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, viewUsage); fs.PrintDefaults() }
	fs.StringVarP(&out, "output", "o", "", "the folder to write the site to (made when missing)")
	fs.StringVar(&addr, "serve", "", "serve the site on this host:port instead of writing it (e.g. 127.0.0.1:8000)")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval view --help"))
	}
	switch {
	case fs.NArg() < 1 || fs.NArg() > 2:
		return usageError(stderr, errcode.New(errcode.Usage, "view takes RUN and an optional BASELINE_RUN, got %d arguments", fs.NArg()).
			WithHint("murmur-eval view runs/<run id> [runs/<baseline id>] -o site"))
	case out == "" && addr == "":
		return usageError(stderr, errcode.New(errcode.Usage, "view needs -o DIR or --serve ADDR").
			WithHint("murmur-eval view %s -o site, then open site/index.html", fs.Arg(0)))
	case out != "" && addr != "":
		return usageError(stderr, errcode.New(errcode.Usage, "-o and --serve are exclusive"))
	}
	start := time.Now()
	site, err := view.Open(view.Options{Run: fs.Arg(0), Baseline: fs.Arg(1)})
	if err != nil {
		return usageError(stderr, err)
	}
	if addr != "" {
		return serveView(ctx, site, addr, stdout, stderr)
	}
	st, err := site.Write(ctx, out)
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	fmt.Fprintf(stdout, "view: %d case pages and index.html (%d KiB) in %s, in %.1fs\n", st.Pages, (st.IndexBytes+1023)/1024, out, time.Since(start).Seconds())
	if fs.NArg() == 2 {
		fmt.Fprintf(stdout, "view: %s flipped against the baseline\n", plural(st.Flips, "verdict"))
	}
	return exitOK
}

// serveView serves the site until an interrupt.
func serveView(ctx context.Context, site *view.Site, addr string, stdout, stderr io.Writer) int {
	h, err := site.Handler()
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = view.Serve(ctx, addr, h, func(url string) { fmt.Fprintf(stdout, "view: serving %s (interrupt to stop)\n", url) })
	if err != nil {
		return usageError(stderr, err)
	}
	return exitOK
}
