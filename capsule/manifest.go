package capsule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// ManifestFile is the file name of both the capsule manifest and the
// manifest packed inside an artifact.
const ManifestFile = "murmur.yaml"

// Manifest is a parsed capsule manifest (murmur.yaml, murmur-formats.md §1),
// with murmur's defaults applied.
type Manifest struct {
	Path string // the manifest path as given
	Dir  string // the project directory: the manifest's parent

	Name       string // verbatim; never blank
	Version    string // verbatim; never blank
	MurVersion string // "" when absent

	Artifacts    []ArtifactDecl
	Inference    *Inference // nil for a script capsule (no inference block)
	Capabilities Capabilities

	// Warnings are the non-fatal notes murmur prints to stderr while parsing.
	Warnings []string
}

// Runtime is an artifact's role: what the capsule does with it.
type Runtime string

// The artifact roles. Tools and skills are visible to the model; drivers and
// hooks are not.
const (
	RuntimeTool   Runtime = "tool"
	RuntimeDriver Runtime = "driver"
	RuntimeHook   Runtime = "hook"
	RuntimeSkill  Runtime = "skill"
)

// ArtifactDecl is one entry of the manifest's artifacts list (§1.3).
type ArtifactDecl struct {
	Name          string
	Version       string // "local" when Source is set
	Runtime       Runtime
	Source        string // local path (relative to Dir unless absolute); "" when absent
	LocalSource   bool   // default: true for skills, false otherwise
	PromptPayload bool   // default: true for skills, false otherwise
}

// IsLocal reports whether the artifact comes from a local source path rather
// than a registry; murmur never locks or resolves such artifacts.
func (a ArtifactDecl) IsLocal() bool { return a.Source != "" }

// LoadManifest reads and parses the capsule manifest at path. See ParseManifest.
func LoadManifest(path string, lookupEnv func(string) (string, bool)) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errcode.New(errcode.IONotFound, "%s not found at %s", ManifestFile, path).
			WithHint("pass the path of the capsule's %s", ManifestFile)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "failed to read %s at %s", ManifestFile, path)
	}
	return ParseManifest(path, data, lookupEnv)
}

// ParseManifest parses a capsule manifest read from path; path names the file
// in every error's Where ("murmur.yaml:7:12") and sets Dir. lookupEnv resolves
// a `${VAR}` inference.api_key; nil means no variable is set.
//
// Like murmur, it first decodes the whole document (shape errors are
// E-MAN-002), then validates values (E-MAN-001 for a missing name or version,
// E-MAN-003 for rejected values). Unknown keys are ignored at every level.
// Messages are murmur's without its "murmur.yaml: " prefix, which Where replaces.
func ParseManifest(path string, data []byte, lookupEnv func(string) (string, bool)) (*Manifest, error) {
	d := &decoder{file: path, code: errcode.ManifestSyntax, prefix: "YAML syntax error: "}
	root, err := d.document(data)
	if err != nil {
		return nil, err
	}
	raw, err := decodeManifest(d, root)
	if err != nil {
		return nil, err
	}
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	return lowerManifest(d, raw, lookupEnv)
}

type rawManifest struct {
	root                      *yaml.Node
	name, version, murVersion scalar
	artifacts                 []rawArtifact
	capabilities              *rawCapabilities
	inference                 *rawInference
}

type rawArtifact struct {
	node                           *yaml.Node
	name, version, runtime, source scalar
	localSource, promptPayload     optBool
}

func decodeManifest(d *decoder, root *yaml.Node) (*rawManifest, error) {
	raw := &rawManifest{root: root}
	if root == nil {
		return raw, nil
	}
	m, err := d.mapping(root, "", "a mapping")
	if err != nil {
		return nil, err
	}
	var errs fieldErrs
	raw.name = errs.str(m, "name")
	raw.version = errs.str(m, "version")
	raw.murVersion = errs.str(m, "mur_version")
	items, err := m.seq("artifacts")
	errs.add(err)
	for i, item := range items {
		a, err := decodeArtifact(d, item, i)
		if errs.add(err) {
			break
		}
		raw.artifacts = append(raw.artifacts, a)
	}
	if c, err := m.child("capabilities"); !errs.add(err) && c != nil {
		raw.capabilities, err = decodeCapabilities(c)
		errs.add(err)
	}
	if c, err := m.child("inference"); !errs.add(err) && c != nil {
		raw.inference, err = decodeInference(c)
		errs.add(err)
	}
	return raw, errs.first
}

func decodeArtifact(d *decoder, item *yaml.Node, i int) (rawArtifact, error) {
	m, err := d.mapping(item, "artifacts["+strconv.Itoa(i)+"]", "a mapping")
	if err != nil {
		return rawArtifact{}, err
	}
	var errs fieldErrs
	a := rawArtifact{node: m.node}
	a.name = errs.str(m, "name")
	a.version = errs.str(m, "version")
	a.runtime = errs.str(m, "runtime")
	a.source = errs.str(m, "source")
	a.localSource = errs.boolean(m, "local_source")
	a.promptPayload = errs.boolean(m, "prompt_payload")
	return a, errs.first
}

func lowerManifest(d *decoder, raw *rawManifest, lookupEnv func(string) (string, bool)) (*Manifest, error) {
	man := &Manifest{Path: d.file, Dir: filepath.Dir(d.file)}
	if raw.name.blank() {
		return nil, missingField(d, raw.name.node, raw.root, "name")
	}
	if raw.version.blank() {
		return nil, missingField(d, raw.version.node, raw.root, "version")
	}
	man.Name, man.Version = raw.name.text, raw.version.text
	if !raw.murVersion.blank() {
		man.MurVersion = raw.murVersion.text
	}
	for i, ra := range raw.artifacts {
		a, warn, err := lowerArtifact(d, ra, i)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			man.Warnings = append(man.Warnings, warn)
		}
		man.Artifacts = append(man.Artifacts, a)
	}
	var err error
	if man.Capabilities, err = lowerCapabilities(d, raw.capabilities); err != nil {
		return nil, err
	}
	if man.Inference, err = lowerInference(d, raw.inference, lookupEnv); err != nil {
		return nil, err
	}
	if err := checkPromptArtifact(d, raw.inference, man); err != nil {
		return nil, err
	}
	return man, nil
}

func missingField(d *decoder, value, parent *yaml.Node, field string) error {
	at := value
	if at == nil {
		at = parent
	}
	return errcode.New(errcode.ManifestMissingField, "missing required field '%s'", field).At(d.where(at))
}

func lowerArtifact(d *decoder, ra rawArtifact, i int) (ArtifactDecl, string, error) {
	invalid := func(n *yaml.Node, format string, args ...any) error {
		if n == nil {
			n = ra.node
		}
		return errcode.New(errcode.ManifestInvalid, "invalid artifact declaration at index %d: %s",
			i, fmt.Sprintf(format, args...)).At(d.where(n))
	}
	if ra.name.blank() {
		return ArtifactDecl{}, "", invalid(ra.name.node, "missing required field 'name'")
	}
	a := ArtifactDecl{Name: ra.name.text, Runtime: RuntimeTool}
	if !ra.source.blank() {
		a.Source = ra.source.text
	}
	if ra.runtime.node != nil {
		switch r := Runtime(ra.runtime.text); r {
		case RuntimeTool, RuntimeDriver, RuntimeHook, RuntimeSkill:
			a.Runtime = r
		case "wasm", "native":
			return a, "", invalid(ra.runtime.node, "use 'runtime: tool'; implementation is declared in the artifact's own manifest (got '%s')", r)
		default:
			return a, "", invalid(ra.runtime.node, "unknown runtime '%s'; expected one of: tool, driver, hook, skill", r)
		}
	}
	a.LocalSource = boolOr(ra.localSource, a.Runtime == RuntimeSkill)
	a.PromptPayload = boolOr(ra.promptPayload, a.Runtime == RuntimeSkill)
	if a.Source != "" && !a.LocalSource {
		return a, "", invalid(ra.source.node, "artifact '%s' declares 'source:' but does not declare 'local_source: true' (runtime: %s)", a.Name, a.Runtime)
	}
	if a.Source != "" {
		a.Version = "local"
		if !ra.version.blank() {
			return a, fmt.Sprintf("artifact '%s' declares both 'source:' and 'version: %s'; version is ignored for local-source skills (using 'local')", a.Name, ra.version.text), nil
		}
		return a, "", nil
	}
	if ra.version.blank() {
		return a, "", invalid(ra.version.node, "missing required field 'version'")
	}
	a.Version = ra.version.text
	return a, "", nil
}
