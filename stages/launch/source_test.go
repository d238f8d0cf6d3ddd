package launch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// seenSource keeps the Case it was asked for.
type seenSource struct{ got []inference.Case }

func (s *seenSource) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	s.got = append(s.got, c)
	return nil, nil
}

func TestLaunchHandsTheInferenceBlockToTheSource(t *testing.T) {
	project, session := t.TempDir(), t.TempDir()
	yaml := "name: qs\nversion: \"1\"\ninference: {endpoint: \"https://api.anthropic.com\", model: claude-x, api_key: sk-lit, max_tokens: 77, driver: {artifact: murmur-driver-anthropic, config: {api: anthropic, thinking: enabled}}}\n"
	m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &seenSource{}
	c := &pipeline.Case{
		Input:      datasets.Case{ID: "c/1"},
		SessionDir: session,
		Capsule:    &pipeline.Capsule{Manifest: m},
		Toolset:    &pipeline.Toolset{},
		Policy:     &pipeline.Policy{Declared: "advisory", Achieved: "advisory", Root: session},
	}
	if err := New(src, time.Now).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	defer c.Session.Trace.Close()
	want := []inference.Case{{ID: "c/1", Workdir: session, Inference: inference.Config{
		Transport: "http", Endpoint: "https://api.anthropic.com", Model: "claude-x", APIKey: "sk-lit", MaxTokens: 77,
		DriverArtifact: "murmur-driver-anthropic", DriverConfig: json.RawMessage(`{"api":"anthropic","thinking":"enabled"}`),
	}}}
	if diff := cmp.Diff(want, src.got); diff != "" {
		t.Errorf("ForCase got (-want +got):\n%s", diff)
	}
}
