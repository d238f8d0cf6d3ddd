package capsule

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestManifestUnknownKeys(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []UnknownKey
	}{
		{"none", "name: a\nversion: '1'\nartifacts:\n  - name: calc\n    version: 0.1.0\ninference:\n  max_turns: 3\n  endpoint: https://x\n  model: m\n  driver:\n    artifact: d\n", nil},
		{"artifact for artifacts", "name: a\nversion: '1'\nartifact:\n  - name: calc\n    version: 0.1.0\n",
			[]UnknownKey{{Where: "m.yaml:3:1", Field: "artifact", Suggest: "artifacts"}}},
		{"nested, in file order", "name: a\nversion: '1'\ninference:\n  max_turn: 3\n  colour: red\n  endpoint: https://x\n  model: m\n  driver:\n    artifact: d\ncapabilities:\n  netwrok: {}\n",
			[]UnknownKey{{Where: "m.yaml:4:3", Field: "inference.max_turn", Suggest: "max_turns"},
				{Where: "m.yaml:5:3", Field: "inference.colour"},
				{Where: "m.yaml:11:3", Field: "capabilities.netwrok", Suggest: "network"}}},
		{"in an artifact entry", "name: a\nversion: '1'\nartifacts:\n  - name: calc\n    version: 0.1.0\n    runtme: tool\n",
			[]UnknownKey{{Where: "m.yaml:6:5", Field: "artifacts[0].runtme", Suggest: "runtime"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest("m.yaml", []byte(tc.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, m.UnknownKeys); diff != "" {
				t.Errorf("unknown keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArtifactManifestUnknownKeys(t *testing.T) {
	am, err := ParseArtifactManifest("calc/murmur.yaml", []byte("name: calc\nversion: 0.1.0\nruntime: tool\ndescripton: adds\ninput_schema: {type: object}\nbinding: on-task-end\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []UnknownKey{{Where: "calc/murmur.yaml:4:1", Field: "descripton", Suggest: "description"}}
	if diff := cmp.Diff(want, am.UnknownKeys); diff != "" {
		t.Errorf("unknown keys (-want +got):\n%s", diff)
	}
	if got := want[0].String(); got != `calc/murmur.yaml:4:1: unknown key "descripton" (did you mean "description"?); murmur ignores it` {
		t.Errorf("String() = %s", got)
	}
}

// TestUnknownKeyScoring: a key in observability.eval, or one that most
// likely meant observability or its eval, configures scorers that are not
// applied; any other unknown key changes nothing scored.
func TestUnknownKeyScoring(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []bool
	}{
		{"observability misspelt", "observabilty:\n  eval:\n    scorers: [{type: exit_ok}]\n", []bool{true}},
		{"eval misspelt", "observability:\n  evl:\n    scorers: [{type: exit_ok}]\n", []bool{true}},
		{"scorers misspelt", "observability:\n  eval:\n    scorer: [{type: exit_ok}]\n", []bool{true}},
		{"in a scorer entry", "observability:\n  eval:\n    scorers: [{type: max_turns, mx: 3}]\n", []bool{true}},
		{"otel endpoint misspelt", "observability:\n  otel_endpont: http://x\n", []bool{false}},
		{"elsewhere", "inference:\n  max_turn: 3\n  endpoint: https://x\n  model: m\n  driver:\n    artifact: d\ncolour: red\n", []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest("m.yaml", []byte("name: a\nversion: '1'\n"+tc.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []bool
			for _, u := range m.UnknownKeys {
				got = append(got, u.Scoring())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Scoring() of %v (-want +got):\n%s", m.UnknownKeys, diff)
			}
		})
	}
}
