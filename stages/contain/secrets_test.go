package contain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestGuestEnvNeverHoldsTheRunsSecrets: env.allow names the variable the
// manifest's api_key reads, one holding it inside a URL, and one holding
// a credential-named host variable's value; none reaches the guest's
// environment, an ordinary one does, and logs/bootstrap.log names each
// one left out without its value.
func TestGuestEnvNeverHoldsTheRunsSecrets(t *testing.T) {
	const key = "rt-key-5f0c9a1e7b3d"
	host := map[string]string{
		"RT_KEY": key, "RT_URL": "https://p.example/?key=" + key, "FOO": "1",
		"ANTHROPIC_API_KEY": "sk-ant-0123456789", "MY_COPY": "sk-ant-0123456789",
	}
	manifest := base[:strings.Index(base, "inference:")] +
		"inference: {endpoint: \"https://api.example.com\", model: m, api_key: \"${RT_KEY}\", driver: {artifact: d}}\n" +
		"capabilities: {env: {allow: [RT_KEY, RT_URL, FOO, MY_COPY]}}\n"
	m, err := capsule.ParseManifest("murmur.yaml", []byte(manifest), func(k string) (string, bool) { v, ok := host[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if m.Inference.APIKey != key {
		t.Fatalf("api_key resolved to %q", m.Inference.APIKey)
	}
	c := &pipeline.Case{SessionID: "ses_1", SessionDir: t.TempDir()}
	pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: m})
	pipeline.Store(c, verify.Result, &verify.Toolset{})
	pipeline.Store(c, staging.Result, &staging.Staged{})
	if err := New(host).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	env := strings.Join(policyOf(c).Env, "\n")
	if strings.Contains(env, key) || strings.Contains(env, "sk-ant-") {
		t.Errorf("guest env holds a secret:\n%s", env)
	}
	if !strings.Contains(env, "FOO=1") {
		t.Errorf("guest env lacks FOO=1:\n%s", env)
	}
	log, err := os.ReadFile(filepath.Join(c.SessionDir, "logs", "bootstrap.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RT_KEY left out", "RT_URL left out", "MY_COPY left out", "holds ANTHROPIC_API_KEY", "holds inference.api_key"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("bootstrap.log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), key) || strings.Contains(string(log), "sk-ant-") {
		t.Errorf("bootstrap.log holds a secret:\n%s", log)
	}
}
