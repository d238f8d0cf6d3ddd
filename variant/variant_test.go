package variant

import (
	"encoding/json"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestApply(t *testing.T) {
	base := &capsule.Inference{Transport: capsule.TransportHTTP, Model: "m0", Endpoint: "https://a/v1", MaxTurns: 10, MaxTokens: 100,
		DriverConfig: json.RawMessage(`{"api":"openai","temperature":1}`)}
	v := Variant{Name: "v", Model: "m1", Endpoint: "http://127.0.0.1:1/v1", API: "anthropic", Config: json.RawMessage(`{"temperature":0}`), MaxTurns: 2}
	got, err := v.Apply(base)
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "m1" || got.Endpoint != "http://127.0.0.1:1/v1" || got.MaxTurns != 2 || got.MaxTokens != 100 {
		t.Errorf("Apply = %+v", got)
	}
	if string(got.DriverConfig) != `{"api":"anthropic","temperature":0}` {
		t.Errorf("Apply: driver config %s", got.DriverConfig)
	}
	if base.Model != "m0" || string(base.DriverConfig) != `{"api":"openai","temperature":1}` {
		t.Errorf("Apply changed its input: %+v", base)
	}
	same, err := Variant{Name: "only"}.Apply(base)
	if err != nil || same.Model != "m0" || string(same.DriverConfig) != string(base.DriverConfig) {
		t.Errorf("an empty variant changed the block: %+v, %v", same, err)
	}
	proc := &capsule.Inference{Transport: capsule.TransportProcess}
	if _, err := (Variant{Name: "p", Endpoint: "https://x"}).Apply(proc); errcode.Code(err) != errcode.Variants {
		t.Errorf("an endpoint for a process capsule: %v, want %s", err, errcode.Variants)
	}
	if got, err := (Variant{Name: "p", Model: "opus"}).Apply(proc); err != nil || got.Model != "opus" {
		t.Errorf("a model for a process capsule: %+v, %v", got, err)
	}
}
