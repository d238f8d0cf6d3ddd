package launch

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// componentDriver is the capsule's installed driver bound to one case
// (inference.Driver): each Run is a fresh instance, called as murmur calls
// its driver (murmur-session.md §2.1): tool-input{data: the payload,
// log-path: none}, the case's WASM guest environment plus
// MURMUR_INFERENCE_API_KEY (the driver is the one guest that gets the
// key), the driver's allow list, the artifact's deadline and the run's
// memory and output limits. Its chunks, stdout and stderr go to
// logs/components.jsonl as a tool's do.
type componentDriver struct {
	tools *toolbox
	drv   *verify.Driver
	env   []string
}

// bindDriver returns the case's driver, nil when the run has none
// installed.
func bindDriver(tools *toolbox, drv *verify.Driver, inf *capsule.Inference) inference.Driver {
	if drv == nil {
		return nil
	}
	return &componentDriver{tools: tools, drv: drv, env: driverEnv(tools.policy.Env, inf)}
}

// driverEnv is env with the API key added when the manifest sets one.
func driverEnv(env []string, inf *capsule.Inference) []string {
	out := append([]string(nil), env...)
	if inf != nil && inf.APIKey != "" {
		out = append(out, "MURMUR_INFERENCE_API_KEY="+inf.APIKey)
	}
	return out
}

// Run runs the driver once with payload. The requests its allow list
// denied are in the result (Denied), for the driver provider to tell a
// policy denial from the model's failure.
func (d *componentDriver) Run(ctx context.Context, payload []byte) (inference.DriverResult, error) {
	data := string(payload)
	var denied []string
	g := guest{name: d.drv.Name, scope: d.drv.Scope, comp: d.drv.Component, network: d.drv.Network,
		onDenied: func(t capsule.Target) { denied = append(denied, t.Entry()) }}
	res, err := d.tools.runGuest(ctx, g, component.ToolInput{Data: &data}, d.env)
	return inference.DriverResult{Status: res.Status, Summary: res.Summary, Data: res.Data, Metadata: res.Metadata, Denied: denied}, err
}
