package capsule

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Transport is how the agent loop reaches the model.
type Transport string

// The inference transports: a WASM driver artifact speaking HTTP, or a CLI
// subprocess (Claude Code or codex).
const (
	TransportHTTP    Transport = "http"
	TransportProcess Transport = "process"
)

// Defaults murmur applies to the inference block (§1.5).
const (
	DefaultMaxTurns       = 10
	DefaultMaxTaskReopens = 1
	DefaultMaxTokens      = 8192
)

// Inference is the manifest's inference block (§1.5) with defaults applied.
type Inference struct {
	Transport Transport
	Endpoint  string // http only; https, or http to a loopback host
	Model     string // required for http; "" under process means the CLI's default
	APIKey    string // http only; `${VAR}` already resolved; "" when absent

	DriverArtifact string          // http only; `driver.artifact`, or legacy `provider.artifact`
	DriverConfig   json.RawMessage // compact JSON of `driver.config`; nil when absent
	Command        string          // process only

	MaxTurns       uint32 // default 10
	MaxTaskReopens uint32 // default 1; 0 disables reopening
	MaxTokens      uint32 // per-turn output cap, default 8192; 0 under process

	// At most one of the three is set; each is trimmed.
	SystemPrompt         string
	SystemPromptFile     string // relative to the manifest's directory
	SystemPromptArtifact string // names an artifact with PromptPayload

	Compaction *Compaction // nil when absent
}

type rawInference struct {
	node                                            *yaml.Node
	transport, endpoint, model, apiKey, command     scalar
	systemPrompt, systemPromptFile, systemPromptArt scalar
	driver, provider                                *rawDriver
	maxTurns, maxTaskReopens, maxTokens             optUint
	compaction                                      *rawCompaction
}

type rawDriver struct {
	node     *yaml.Node
	artifact scalar
	config   *yaml.Node // any YAML value; nil when absent or null
}

func decodeInference(m *mapping) (*rawInference, error) {
	var errs fieldErrs
	r := &rawInference{node: m.node}
	r.transport = errs.str(m, "transport")
	r.endpoint = errs.str(m, "endpoint")
	r.model = errs.str(m, "model")
	r.apiKey = errs.str(m, "api_key")
	r.command = errs.str(m, "command")
	r.systemPrompt = errs.str(m, "system_prompt")
	r.systemPromptFile = errs.str(m, "system_prompt_file")
	r.systemPromptArt = errs.str(m, "system_prompt_artifact")
	r.maxTurns = errs.uint(m, "max_turns", 32, "u32")
	r.maxTaskReopens = errs.uint(m, "max_task_reopens", 32, "u32")
	r.maxTokens = errs.uint(m, "max_tokens", 32, "u32")
	r.compaction = decodeCompaction(&errs, m)
	for _, key := range []string{"driver", "provider"} {
		c, err := m.child(key)
		if errs.add(err) || c == nil {
			continue
		}
		drv := &rawDriver{node: c.node}
		drv.artifact = errs.str(c, "artifact")
		drv.config, err = c.get("config")
		errs.add(err)
		if key == "driver" {
			r.driver = drv
		} else {
			r.provider = drv
		}
	}
	return r, errs.first
}

func lowerInference(d *decoder, r *rawInference, lookupEnv func(string) (string, bool)) (*Inference, error) {
	if r == nil {
		return nil, nil
	}
	invalid := func(n *yaml.Node, field, format string, args ...any) error {
		if n == nil {
			n = r.node
		}
		return errcode.New(errcode.ManifestInvalid, "invalid inference config for '%s': %s",
			field, fmt.Sprintf(format, args...)).At(d.where(n))
	}
	inf := &Inference{
		Transport:            TransportHTTP,
		SystemPrompt:         r.systemPrompt.trimmed(),
		SystemPromptFile:     r.systemPromptFile.trimmed(),
		SystemPromptArtifact: r.systemPromptArt.trimmed(),
		MaxTurns:             DefaultMaxTurns,
		MaxTaskReopens:       DefaultMaxTaskReopens,
	}
	if t := r.transport.trimmed(); t != "" {
		inf.Transport = Transport(t)
	}
	var err error
	if inf.Compaction, err = lowerCompaction(r.compaction, invalid); err != nil {
		return nil, err
	}
	// done fills in what depends on the transport's fields: the compaction
	// model defaults to the primary model.
	done := func() (*Inference, error) {
		if inf.Compaction != nil && r.compaction.model.node == nil {
			inf.Compaction.Model = inf.Model
		}
		return inf, nil
	}
	set := 0
	for _, s := range []string{inf.SystemPrompt, inf.SystemPromptFile, inf.SystemPromptArtifact} {
		if s != "" {
			set++
		}
	}
	if set > 1 {
		return nil, invalid(nil, "inference.system_prompt", "at most one of system_prompt, system_prompt_file, system_prompt_artifact may be set")
	}
	if r.maxTurns.node != nil {
		if r.maxTurns.val == 0 {
			return nil, invalid(r.maxTurns.node, "inference.max_turns", "must be greater than 0")
		}
		inf.MaxTurns = uint32(r.maxTurns.val)
	}
	if r.maxTaskReopens.node != nil {
		inf.MaxTaskReopens = uint32(r.maxTaskReopens.val)
	}

	switch inf.Transport {
	case TransportHTTP:
		if err := lowerHTTPInference(d, r, inf, invalid, lookupEnv); err != nil {
			return nil, err
		}
		return done()

	case TransportProcess:
		notValid := func(n *yaml.Node, field string) error {
			return invalid(n, field, "is not valid with transport: process")
		}
		switch {
		case r.driver != nil:
			return nil, notValid(r.driver.node, "inference.driver.artifact")
		case r.provider != nil:
			return nil, notValid(r.provider.node, "inference.driver.artifact")
		case !r.endpoint.blank():
			return nil, notValid(r.endpoint.node, "inference.endpoint")
		case !r.apiKey.blank():
			return nil, notValid(r.apiKey.node, "inference.api_key")
		case r.maxTokens.node != nil:
			return nil, notValid(r.maxTokens.node, "inference.max_tokens")
		case r.command.blank():
			return nil, invalid(r.command.node, "inference.command", "missing required field")
		}
		inf.Command = r.command.trimmed()
		inf.Model = r.model.trimmed()
		return done()
	}
	return nil, invalid(r.transport.node, "inference.transport", "unknown value '%s'", inf.Transport)
}

// lowerHTTPInference fills in inf the fields of the http transport
// (endpoint, model, API key, driver, max_tokens), refusing what is
// missing or invalid with invalid's error.
func lowerHTTPInference(d *decoder, r *rawInference, inf *Inference, invalid func(n *yaml.Node, field, format string, args ...any) error, lookupEnv func(string) (string, bool)) error {
	var err error
	required := func(s scalar, key string) (string, error) {
		if s.blank() {
			return "", invalid(s.node, "inference."+key, "missing required field")
		}
		return s.trimmed(), nil
	}
	if inf.Endpoint, err = required(r.endpoint, "endpoint"); err != nil {
		return err
	}
	if msg := checkEndpoint(inf.Endpoint); msg != "" {
		return invalid(r.endpoint.node, "inference.endpoint", "%s", msg)
	}
	if inf.Model, err = required(r.model, "model"); err != nil {
		return err
	}
	if key := r.apiKey.trimmed(); key != "" {
		if inf.APIKey, err = resolveAPIKey(d, r.apiKey.node, key, lookupEnv); err != nil {
			return err
		}
	}
	drv := r.driver
	if drv == nil {
		drv = r.provider
	}
	if drv == nil {
		return invalid(nil, "inference.driver", "missing required field")
	}
	if drv.artifact.blank() {
		return invalid(orNode(drv.artifact.node, drv.node), "inference.driver.artifact", "missing required field")
	}
	inf.DriverArtifact = drv.artifact.trimmed()
	if drv.config != nil {
		if drv.config.Kind != yaml.MappingNode {
			return invalid(drv.config, "inference.driver.config", "expected mapping/object")
		}
		if inf.DriverConfig, err = yamlToJSON(drv.config); err != nil {
			return invalid(drv.config, "inference.driver.config", "failed to convert to JSON: %v", err)
		}
	}
	if r.maxTokens.node != nil && r.maxTokens.val == 0 {
		return invalid(r.maxTokens.node, "inference.max_tokens", "must be greater than 0")
	}
	inf.MaxTokens = DefaultMaxTokens
	if r.maxTokens.node != nil {
		inf.MaxTokens = uint32(r.maxTokens.val)
	}
	return nil
}

func orNode(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}
