package launch

import (
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference/live"
)

// providerName is the model call spans' gen_ai.provider.name: the wire API
// an http capsule's driver speaks (live.APIName: "anthropic" or "openai",
// the conventions' names for both), "" for a process capsule or a driver
// whose API the rule cannot tell (the run fails on that elsewhere).
func providerName(inf *capsule.Inference) string {
	if inf == nil || inf.Transport != capsule.TransportHTTP {
		return ""
	}
	name, err := live.APIName(inferenceConfig(inf))
	if err != nil {
		return ""
	}
	return name
}
