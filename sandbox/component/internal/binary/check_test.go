package binary

import (
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCheckCommon: each thing murmur's shape refuses whatever the world
// is E-RUN-001 naming it; an import the world does not allow is refused
// with the world's reason.
func TestCheckCommon(t *testing.T) {
	allowed := func(name string) (string, bool) { return "no " + name + " here", name == "ok@0.2.0" }
	inst := ExternDesc{Sort: SortInstance}
	tests := []struct {
		name string
		c    Component
		want string // "" accepted
	}{
		{"accepted", Component{Imports: []Import{{Name: "ok@0.2.0", Desc: inst}}, Canons: []Canon{{Op: CanonLift}}}, ""},
		{"start function", Component{HasStart: true}, "start function"},
		{"async", Component{Canons: []Canon{{Op: CanonLift, Async: true}}}, "async canonical options"},
		{"utf16", Component{Canons: []Canon{{Op: CanonLower, Encoding: 1}}}, "other than UTF-8"},
		{"other opcode", Component{Canons: []Canon{{Op: 0x09}}}, "canon opcode 0x9"},
		{"func import", Component{Imports: []Import{{Name: "f", Desc: ExternDesc{Sort: SortFunc}}}}, "not an interface instance"},
		{"not allowed", Component{Imports: []Import{{Name: "wasi:sockets/tcp@0.2.0", Desc: inst}}}, "no wasi:sockets/tcp@0.2.0 here"},
		{"nested code", Component{Components: []*Component{{Modules: [][]byte{nil}}}}, "nested component with code"},
	}
	for _, tt := range tests {
		err := tt.c.CheckCommon(allowed)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: got %v, want accepted", tt.name, err)
		case tt.want != "" && (!errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: got %v, want E-RUN-001 naming %q", tt.name, err, tt.want)
		}
	}
}

// TestShape: a type renders structurally through exported aliases, so
// equal WIT types defined apart compare equal.
func TestShape(t *testing.T) {
	c := &Component{Types: []Type{
		{Def: &TypeDef{Kind: TOption, Elem: ValType{Prim: PString}, HasElem: true}, AliasInstance: -1},
		{Export: 0, AliasInstance: -1}, // an export of type 0 (index 0 is "defined": see Resolve)
		{Def: &TypeDef{Kind: TRecord, Labels: []string{"data", "n"}, Fields: []ValType{{Index: 0}, {Prim: PU32}}}, AliasInstance: -1},
		{Def: &TypeDef{Kind: TEnum, Labels: []string{"a", "b"}}, AliasInstance: -1},
	}}
	for _, tt := range []struct {
		v    ValType
		want string
	}{
		{ValType{Prim: PBool}, "bool"},
		{ValType{Index: 0}, "option<string>"},
		{ValType{Index: 2}, "record{data:option<string>,n:u32}"},
		{ValType{Index: 3}, "enum{a,b}"},
		{ValType{Index: 9}, "?"},
	} {
		if got := c.Shape(tt.v); got != tt.want {
			t.Errorf("Shape(%+v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestFindLiftMissing: an export the component lacks names what it has;
// another version of it names the one accepted; a missing function is a
// NoFuncError.
func TestFindLiftMissing(t *testing.T) {
	c := &Component{Exports: []Export{{Name: "murmur:hook/lifecycle@0.4.0", Sort: SortInstance}}}
	_, err := c.FindLift("murmur:hook/lifecycle@0.5.0", "hook", "on-shell")
	if err == nil || !strings.Contains(err.Error(), "component exports murmur:hook/lifecycle@0.4.0: only murmur:hook/lifecycle@0.5.0 is accepted (murmur's hook world)") {
		t.Errorf("other version: %v", err)
	}
	_, err = c.FindLift("murmur:tool/run@0.1.0", "tool", "run")
	if err == nil || !strings.Contains(err.Error(), "does not export murmur:tool/run@0.1.0 (murmur's tool world); it exports [murmur:hook/lifecycle@0.4.0]") {
		t.Errorf("missing export: %v", err)
	}
	c = &Component{Exports: []Export{{Name: "e", Sort: SortInstance}}, Instances: []Instance{{Component: -1}}}
	_, err = c.FindLift("e", "tool", "run")
	var nf *NoFuncError
	if !errors.As(err, &nf) {
		t.Errorf("missing function: %v, want a NoFuncError", err)
	}
}
