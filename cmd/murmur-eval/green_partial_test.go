package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestGreenPartialRunSaysSo: after Ctrl-C, summary.json says complete
// false with the planned and run counts, and summary.md, the printed
// summary and show say "interrupted: N of M"; after --resume the totals
// count the whole run and say how much came from the journal.
func TestGreenPartialRunSaysSo(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs).withData(bigDataset(t, qs, 40)).withFlags("--workers", "2", "--max-error-rate", "1", "--progress", "none")
	// A first run writes murmur.lock, which the resumed run must find as
	// the interrupted one did.
	if _, r := newFixture(t, qs).run("--limit", "1"); r.code != 0 {
		t.Fatalf("first run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	out := f.newOut()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.start(ctx, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 2*time.Minute, "8 cases journaled", func() bool { return journalLines(out) >= 8 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted run: %v, want exit %d\nstderr:\n%s", err, exitInterrupted, stderr.String())
	}
	d := readDigest(t, out)
	if d.Complete || d.Planned != 40 || d.Ran >= 40 || d.Ran == 0 || d.Stopped != reports.StoppedInterrupted {
		t.Fatalf("summary.json after Ctrl-C: complete %v, planned %d, ran %d, stopped %q", d.Complete, d.Planned, d.Ran, d.Stopped)
	}
	want := fmt.Sprintf("nterrupted: %d of 40 planned cases ran", d.Ran)
	md, _ := os.ReadFile(filepath.Join(out, collect.SummaryMDFile))
	show := runBinary(t, "show", out)
	for name, text := range map[string]string{"stdout": stdout.String(), "summary.md": string(md), "show": show.stdout} {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q:\n%s", name, want, text)
		}
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if rep := runBinary(t, "report", out, "-o", page); rep.code != 0 {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stderr)
	} else if html, _ := os.ReadFile(page); !strings.Contains(string(html), want) {
		t.Errorf("the HTML report does not say %q", want)
	}
	ran := d.Ran

	r := f.resume(out)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	d = readDigest(t, out)
	if !d.Complete || d.Cases != 40 || d.Planned != 40 || d.Ran != 40 || d.Resumed < ran || d.Stopped != "" {
		t.Errorf("summary.json after --resume: complete %v, cases %d, planned %d, ran %d, resumed %d (want >= %d), stopped %q",
			d.Complete, d.Cases, d.Planned, d.Ran, d.Resumed, ran, d.Stopped)
	}
	if !strings.HasPrefix(r.stdout, "40 cases in ") || !strings.Contains(r.stdout, "came from the journal of an earlier invocation") {
		t.Errorf("the summary after --resume does not count the whole run:\n%s", r.stdout)
	}
}
