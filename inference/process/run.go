package process

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// MaxRun is murmur's wall-clock cap on one run of the CLI.
const MaxRun = 600 * time.Second

// stderrTail is how much of the CLI's stderr is kept for error messages.
const stderrTail = 4096

// exitGrace is how long a CLI that printed its result has to exit on its
// own before its process group is killed.
const exitGrace = 3 * time.Second

// maxLine bounds one stdout line (a long tool result echoed back).
const maxLine = 64 << 20

// Command is one run of the CLI.
type Command struct {
	Path  string   // resolved program path
	Args  []string // without the program name
	Env   []string // the whole environment; nil is an empty one
	Dir   string   // working directory
	Stdin []byte   // written, then stdin is closed
	// Cap is the wall-clock limit of the run (MaxRun when zero).
	Cap time.Duration
}

// Failure is a run that ended without a successful result, in murmur's
// words: the turn cap, an error result, no result, the wall-clock cap, a
// malformed line. The loop ends the session failed with it.
type Failure struct {
	Msg string
	// Agent is set when the agent itself ended the run: it used up its
	// turns (the loop's cap, or the CLI's result subtype error_max_turns).
	// The evaluation scores that as the model's failure; any other
	// Failure is the CLI's or the provider's and leaves the case unscored.
	Agent bool
}

func (f *Failure) Error() string { return f.Msg }

// Handler hears each event as it is parsed, on Run's goroutine. A non-nil
// error stops the run: the CLI is killed and Run returns that error.
type Handler func(Event) error

// Run spawns the CLI in its own process group, writes Stdin and closes
// it, and feeds each stdout line through p to h until a result event. It
// returns the successful result; a *Failure for murmur's failures (with
// the stderr tail appended); h's error; or, when ctx ended first, an error
// wrapping ctx's. The whole process group is killed on every path.
func Run(ctx context.Context, c Command, p *Parser, h Handler) (Result, error) {
	cmdCap := c.Cap
	if cmdCap <= 0 {
		cmdCap = MaxRun
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = ownGroup()
	cmd.WaitDelay = 2 * time.Second // stderr held open by something that left the group
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, err
	}
	tail := &tailBuffer{max: stderrTail}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("start inference subprocess %s: %w", c.Path, err)
	}
	killGroup := func() { killTree(cmd.Process) }
	go func() {
		_, _ = stdin.Write(c.Stdin)
		_ = stdin.Close()
	}()

	lines := make(chan []byte)
	readDone := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := readLine(r)
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				close(lines)
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readDone <- err
				return
			}
		}
	}()
	// finish kills the group (after a grace when the CLI is done), drains
	// stdout so the reader ends, and reaps the child.
	finish := func(grace time.Duration) {
		if grace > 0 {
			t := time.NewTimer(grace)
			defer t.Stop()
		wait:
			for {
				select {
				case _, ok := <-lines:
					if !ok {
						break wait
					}
				case <-t.C:
					break wait
				}
			}
		}
		// Before Wait: the unreaped leader keeps the group id from being
		// reused, so this reaches only what the CLI started in its group.
		killGroup()
		// Wait closes our end of stdout once the CLI is reaped, so the
		// reader ends even if something that left the group holds the pipe.
		waited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(waited) }()
		for range lines {
		}
		<-waited
	}
	timer := time.NewTimer(cmdCap)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			finish(0)
			return Result{}, fmt.Errorf("inference subprocess: %w", context.Cause(ctx))
		case <-timer.C:
			finish(0)
			return Result{}, failure(fmt.Sprintf("inference subprocess timed out after %s", cmdCap), tail)
		case line, ok := <-lines:
			if !ok {
				rerr := <-readDone
				finish(0)
				if ctx.Err() != nil {
					return Result{}, fmt.Errorf("inference subprocess: %w", context.Cause(ctx))
				}
				msg := "inference subprocess closed stdout without producing a result"
				if rerr != nil {
					msg = "read inference subprocess output: " + rerr.Error()
				}
				return Result{}, failure(msg, tail)
			}
			ev, err := p.Line(line, time.Now())
			if err != nil {
				finish(0)
				return Result{}, failure(err.Error(), tail)
			}
			if err := h(ev); err != nil {
				finish(0)
				return Result{}, err
			}
			if ev.Result == nil {
				continue
			}
			finish(exitGrace)
			if !ev.Result.Success() {
				msg := fmt.Sprintf("inference subprocess returned result subtype '%s'", ev.Result.Subtype)
				if ev.Result.Text != "" {
					msg += ": " + ev.Result.Text
				}
				f := failure(msg, tail)
				f.Agent = ev.Result.Subtype == SubtypeMaxTurns
				return *ev.Result, f
			}
			return *ev.Result, nil
		}
	}
}

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a stdout line is longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// SubtypeMaxTurns is the result subtype of a Claude Code run that used up
// its --max-turns: the agent's ending, not a fault.
const SubtypeMaxTurns = "error_max_turns"

// failure is a Failure with the CLI's stderr tail, when it wrote any.
func failure(msg string, tail *tailBuffer) *Failure {
	if s := strings.TrimSpace(tail.String()); s != "" {
		msg += "; stderr: " + s
	}
	return &Failure{Msg: msg}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "\uFFFD")
}
