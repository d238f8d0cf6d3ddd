package live

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// TestMemoComparesEveryField fails when inference.Config gains a field
// that sameConfig does not compare yet.
func TestMemoComparesEveryField(t *testing.T) {
	if n := reflect.TypeFor[inference.Config]().NumField(); n != 7 {
		t.Fatalf("inference.Config has %d fields; sameConfig compares 7: update it", n)
	}
}

func TestMemoSelect(t *testing.T) {
	base := inference.Config{Endpoint: "http://127.0.0.1:1", Model: "m", DriverArtifact: "murmur-driver-openai",
		DriverConfig: json.RawMessage(`{"path":"/a"}`)}
	var m memo
	first, err := m.selectAPI(base)
	if err != nil {
		t.Fatal(err)
	}
	again := base
	again.DriverConfig = json.RawMessage(`{"path":"/a"}`)
	if got, _ := m.selectAPI(again); got != first {
		t.Error("an equal inference block built a new API")
	}
	// The memo keeps its own copy: changing the caller's bytes changes nothing.
	again.DriverConfig[10] = 'b'
	if got, _ := m.selectAPI(again); got == first || got.URL() != "http://127.0.0.1:1/b" {
		t.Errorf("a changed driver.config reused the old API (url %s)", got.URL())
	}
	tests := []struct {
		name string
		edit func(*inference.Config)
		code string
	}{
		{"other model", func(c *inference.Config) { c.Model = "n" }, ""},
		{"other artifact", func(c *inference.Config) { c.DriverArtifact = "murmur-driver-anthropic" }, ""},
		{"unknown artifact", func(c *inference.Config) { c.DriverArtifact = "x"; c.DriverConfig = nil }, errcode.ProviderDriver},
		{"bad api", func(c *inference.Config) { c.DriverConfig = json.RawMessage(`{"api":"x"}`) }, errcode.ProviderDriver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			want, wantErr := Select(c)
			for range 2 { // the second call is served by the memo
				got, err := m.selectAPI(c)
				if errcode.Code(err) != errcode.Code(wantErr) || errcode.Code(err) != tt.code {
					t.Fatalf("err %v, want code %q", err, tt.code)
				}
				if err == nil && (got.Name() != want.Name() || got.URL() != want.URL()) {
					t.Errorf("got %s %s, want %s %s", got.Name(), got.URL(), want.Name(), want.URL())
				}
			}
		})
	}
}
