package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestCallReachesTheSession: any call, whatever it names (a tool the
// capsule does not have, a skill, a local-source skill), counts as the
// session folder handed over; a toolbox nobody called does not.
func TestCallReachesTheSession(t *testing.T) {
	session := t.TempDir()
	writeTools(t, session, map[string]string{"local/skill.md": "# Local\n"})
	for _, name := range []string{"no-such-tool", "guide", "local"} {
		tb := &toolbox{set: &verify.Toolset{Tools: map[string]*verify.Tool{"guide": {Name: "guide", Skill: "# Guide\n"}}},
			policy: &contain.Policy{Root: session}}
		if !tb.untouched() {
			t.Fatalf("%s: a toolbox nobody called is reached", name)
		}
		if _, err := tb.Call(context.Background(), name, json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		if tb.untouched() {
			t.Errorf("call %q: the toolbox still reports the session untouched", name)
		}
	}
}

// TestScriptReachesTheSession: a script capsule's run counts as the
// session folder handed over before the folder is opened, so a run
// whose open fails counts too.
func TestScriptReachesTheSession(t *testing.T) {
	tb := &toolbox{set: &verify.Toolset{}, policy: &contain.Policy{Root: filepath.Join(t.TempDir(), "gone")}}
	if _, err := (&scriptRunner{tools: tb}).RunScript(context.Background()); err == nil {
		t.Fatal("a script ran in a session folder that does not exist")
	}
	if tb.untouched() {
		t.Error("the session is untouched after a script run")
	}
}

// driverBox is a toolbox whose driver is the tool component fixture
// (sandbox/component/testdata/tool.wat: input "e<text>" echoes without
// touching a file, "f<name>" reads name through its "." preopen) with
// filesystem.scope scope, in the session folder root.
func driverBox(t *testing.T, root, scope string) (*toolbox, *componentDriver) {
	t.Helper()
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	bin, err := component.Decode(componenttest.Fixture(t, "tool"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(ctx, e.Runtime(), bin, component.WorldTool)
	if err != nil {
		t.Fatal(err)
	}
	tb := &toolbox{set: &verify.Toolset{Engine: e, Tools: map[string]*verify.Tool{}},
		policy: &contain.Policy{Root: root, Deadline: 10 * time.Second}, denied: &session.Denials{}}
	return tb, &componentDriver{tools: tb, drv: &verify.Driver{Name: "drv", Component: c, Scope: scope}}
}

// TestDriverReachesTheSessionOnlyWhenItOpensIt: a driver run whose guest
// never asks for its preopen leaves the session untouched (and its
// output still goes to logs/components.jsonl, murmur-eval's own write);
// one that opens it lazily reaches it, also when the open fails; a
// driver with a filesystem.scope reaches it at once, whatever it does.
func TestDriverReachesTheSessionOnlyWhenItOpensIt(t *testing.T) {
	tests := []struct {
		name, scope, input string
		gone               bool // the session folder is removed first: the open fails
		reached            bool
	}{
		{name: "echo", input: "ehello", reached: false},
		{name: "lazy open", input: "fin.txt", reached: true},
		{name: "lazy open fails", input: "fin.txt", gone: true, reached: true},
		{name: "scoped", scope: "work", input: "ehello", reached: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.gone {
				if err := os.RemoveAll(root); err != nil {
					t.Fatal(err)
				}
			}
			tb, drv := driverBox(t, root, tt.scope)
			res, err := drv.Run(context.Background(), []byte(tt.input))
			if !tt.gone && (err != nil || res.Status != "passed") {
				t.Fatalf("driver run: %+v, %v", res, err)
			}
			if tt.input == "fin.txt" && !tt.gone && (res.Data == nil || *res.Data != "inside") {
				t.Fatalf("the guest did not read through its preopen: %+v", res)
			}
			if got := !tb.untouched(); got != tt.reached {
				t.Errorf("reached = %v, want %v", got, tt.reached)
			}
		})
	}
}

// TestUntouchedOnlyWhereEverythingGoesThroughTheToolbox: Launch gives a
// session an Untouched that reads its toolbox only when nothing else
// untrusted may reach the folder: not for a process CLI, hooks, a
// script capsule, a dataset line with a setup or an expected.check, or
// a line that cannot be read.
func TestUntouchedOnlyWhereEverythingGoesThroughTheToolbox(t *testing.T) {
	tb := &toolbox{}
	line := func(in datasets.Case) *pipeline.Case { return &pipeline.Case{Input: in} }
	tests := []struct {
		name string
		c    *pipeline.Case
		ses  *session.Session
		set  bool
	}{
		{"plain", line(datasets.Case{}), &session.Session{}, true},
		{"expected without check", line(datasets.Case{Expected: json.RawMessage(`{"result_contains": "check"}`)}), &session.Session{}, true},
		{"expected not murmur-eval's", line(datasets.Case{Expected: json.RawMessage(`"check"`)}), &session.Session{}, true},
		{"process", line(datasets.Case{}), &session.Session{Process: &session.ProcessCLI{}}, false},
		{"hooks", line(datasets.Case{}), &session.Session{Hooks: &hooks.Dispatcher{}}, false},
		{"script", line(datasets.Case{}), &session.Session{Script: &scriptRunner{}}, false},
		{"setup", line(datasets.Case{Setup: &datasets.Setup{Argv: []string{"true"}}}), &session.Session{}, false},
		{"check", line(datasets.Case{Expected: json.RawMessage(` {"result_equals": "x", "check": "true"}`)}), &session.Session{}, false},
		{"check escaped", line(datasets.Case{Expected: json.RawMessage(`{"\u0063heck": "true"}`)}), &session.Session{}, false},
		{"unreadable line", &pipeline.Case{Input: os.ErrNotExist}, &session.Session{}, false},
	}
	for _, tt := range tests {
		if got := untouchedFunc(tt.c, tb, tt.ses) != nil; got != tt.set {
			t.Errorf("%s: Untouched set = %v, want %v", tt.name, got, tt.set)
		}
	}
}

// byTransport serves a process capsule no provider (its CLI is run) and
// any other one a provider never asked.
type byTransport struct{}

func (byTransport) ForCase(_ context.Context, c inference.Case) (inference.Provider, error) {
	if c.Inference.Transport == string(capsule.TransportProcess) {
		return nil, nil
	}
	return nopProvider{}, nil
}

// TestLaunchSetsUntouched: through the stage, a plain case's session
// reports untouched until its toolbox is called; one with a check, a
// process CLI or hooks gets none.
func TestLaunchSetsUntouched(t *testing.T) {
	project, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	parse := func(src string) *capsule.Manifest {
		m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	http := parse("name: qs\nversion: '1'\ninference: {endpoint: 'https://x.example', model: m, driver: {artifact: d}}\n")
	process := parse("name: p\nversion: '1'\ninference: {transport: process, command: claude}\n")
	set, err := hooks.Load(hooktest.Engine(t), []hooks.Spec{{Name: "h", Version: "1", Module: hooktest.Module(t),
		Manifest: []byte("binding: on-task-end\n")}}, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		m        *capsule.Manifest
		expected string
		hooks    *hooks.Set
		set      bool
	}{
		{name: "plain", m: http, set: true},
		{name: "check", m: http, expected: `{"check": "true"}`},
		{name: "process", m: process},
		{name: "hooks", m: http, hooks: set},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := launchCase("c", dir, "ses_1", tt.m)
			c.Input = datasets.Case{ID: "c", Expected: json.RawMessage(tt.expected)}
			pipeline.Store(c, verify.Result, &verify.Toolset{Hooks: tt.hooks})
			err := New(byTransport{}, time.Now).WithHostEnv(map[string]string{"PATH": bin}).Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			ses := sessionOf(c)
			defer ses.Close()
			if (ses.Untouched != nil) != tt.set {
				t.Fatalf("Untouched set = %v, want %v", ses.Untouched != nil, tt.set)
			}
			if !tt.set {
				return
			}
			if !ses.Untouched() {
				t.Error("a session nothing was called in is reached")
			}
			if _, err := ses.Tools.Call(context.Background(), "nope", json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
			if ses.Untouched() {
				t.Error("the session is untouched after a tool call")
			}
		})
	}
}
