package capsule

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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

	Context       Context
	Observability Observability
	Trace         Trace
	Network       Network
	Lifecycle     Lifecycle

	// Warnings are the non-fatal notes murmur prints to stderr while parsing.
	Warnings []string
	// UnknownKeys are the keys no field of the format has, which murmur
	// ignores silently and murmur-eval reports.
	UnknownKeys []UnknownKey

	// at holds the positions (file:line:col) MurmurInferenceRefusals and
	// MurmurLifecycleRefusal name.
	at struct{ endpoint, driver, afterTask string }
}

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
	man, err := lowerManifest(d, raw, lookupEnv)
	if err != nil {
		return nil, err
	}
	man.UnknownKeys = d.unknownKeys()
	return man, nil
}

type rawManifest struct {
	root                      *yaml.Node
	name, version, murVersion scalar
	artifacts                 []rawArtifact
	capabilities              *rawCapabilities
	inference                 *rawInference
	blocks                    rawBlocks
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
	for i, item := range errs.seq(m, "artifacts") {
		a, err := decodeArtifact(d, item, i)
		if errs.add(err) {
			break
		}
		raw.artifacts = append(raw.artifacts, a)
	}
	if c := errs.child(m, "capabilities"); c != nil && errs.first == nil {
		raw.capabilities, errs.first = decodeCapabilities(c)
	}
	if c := errs.child(m, "inference"); c != nil && errs.first == nil {
		raw.inference, errs.first = decodeInference(c)
	}
	raw.blocks = decodeBlocks(&errs, m)
	return raw, errs.first
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
	if r := raw.inference; r != nil {
		man.at.endpoint = d.where(r.endpoint.node)
		if drv := r.driver; drv != nil {
			man.at.driver = d.where(drv.artifact.node)
		} else if r.provider != nil {
			man.at.driver = d.where(r.provider.artifact.node)
		}
	}
	if err := checkPromptArtifact(d, raw.inference, man); err != nil {
		return nil, err
	}
	if err := lowerBlocks(d, raw.blocks, man); err != nil {
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
