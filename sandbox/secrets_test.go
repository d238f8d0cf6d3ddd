package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretsFilterDropsByValue(t *testing.T) {
	const key = "rt-key-5f0c9a1e7b"
	s := NewSecrets([2]string{"inference.api_key", key}, [2]string{"GH_TOKEN", "abc"})
	env := []string{
		"PLAIN=hello",
		"RT_KEY=" + key,                          // the key under a name no pattern matches
		"RT_URL=https://x.example/v1?key=" + key, // the key inside a longer value
		"SHORT=abc",                              // a short secret, whole
		"HAS_SHORT=xabcx",                        // a short secret is not looked for inside
		"PART=" + key[:len(key)-1],               // a prefix of the key is not the key
		"EMPTY=",
	}
	kept, dropped := s.Filter(env)
	if diff := cmp.Diff([]string{"PLAIN=hello", "HAS_SHORT=xabcx", "PART=" + key[:len(key)-1], "EMPTY="}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := []Dropped{{"RT_KEY", "inference.api_key"}, {"RT_URL", "inference.api_key"}, {"SHORT", "GH_TOKEN"}}
	if diff := cmp.Diff(want, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if env[1] != "RT_KEY="+key {
		t.Errorf("Filter changed its input: %q", env[1])
	}
}

func TestSecretsFilterKeepsEnvWithNothingToDrop(t *testing.T) {
	env := []string{"A=1", "B=2"}
	for _, s := range []*Secrets{nil, NewSecrets(), NewSecrets([2]string{"inference.api_key", ""}), NewSecrets([2]string{"k", "zzzzzzzzzz"})} {
		kept, dropped := s.Filter(env)
		if diff := cmp.Diff(env, kept); diff != "" || dropped != nil {
			t.Errorf("Filter with %d secrets: kept (-want +got):\n%s dropped %v", s.Len(), diff, dropped)
		}
	}
}

func TestRunSecrets(t *testing.T) {
	host := map[string]string{
		"ANTHROPIC_API_KEY":     "sk-ant-host-1234",
		"STRIPE_API_KEY":        "sk-stripe-5678",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-90ab",
		"AWS_REGION":            "us-east-1", // configuration, not a secret
		"DOCKER_HOST":           "unix:///var/run/docker.sock",
		"KUBECONFIG":            "/root/.kube/config",
		"MY_SETTING":            "sk-ant-host-1234-not-a-name-match",
	}
	s := RunSecrets(host, "rt-key-5f0c9a1e7b")
	for v, want := range map[string]bool{
		"rt-key-5f0c9a1e7b":           true,
		"sk-ant-host-1234":            true,
		"sk-stripe-5678":              true,
		"aws-secret-90ab":             true,
		"us-east-1":                   false,
		"unix:///var/run/docker.sock": false,
		"/root/.kube/config":          false,
		"anything else":               false,
	} {
		if _, got := s.Holds(v); got != want {
			t.Errorf("RunSecrets(...).Holds(%q) = %v, want %v", v, got, want)
		}
	}
	if src, _ := s.Holds("Bearer rt-key-5f0c9a1e7b"); src != "inference.api_key" {
		t.Errorf("source of the API key = %q, want inference.api_key", src)
	}
	if n := RunSecrets(nil, "").Len(); n != 0 {
		t.Errorf("RunSecrets with nothing: %d secrets", n)
	}
}
