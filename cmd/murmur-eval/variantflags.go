package main

import (
	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// variantOptions are the run's variants: --models A,B (one per model,
// named after it) or --variants FILE (docs/variants.md).
type variantOptions struct {
	models string // --models, as given
	file   string // --variants, as given
	set    variant.Set
}

// register adds --models and --variants to fs, with env as their defaults.
func (v *variantOptions) register(fs *pflag.FlagSet, env map[string]string) {
	fs.StringVar(&v.models, "models", env["MURMUR_EVAL_MODELS"], "run every selected case (and epoch) once per model, comma-separated, each overriding inference.model; rows carry a variant column (the model's name) and the summary shows the models side by side with McNemar tests between them; not with --variants (env MURMUR_EVAL_MODELS)")
	fs.StringVar(&v.file, "variants", env["MURMUR_EVAL_VARIANTS"], "run every selected case once per variant of this YAML file, each a name and overrides of model, endpoint, api, driver config, max_turns or max_tokens (docs/variants.md); not with --models (env MURMUR_EVAL_VARIANTS)")
}

// validate reads the variants: both flags, an empty or bad list, and a
// file that does not parse are usage errors.
func (v *variantOptions) validate() error {
	var err error
	switch {
	case v.models != "" && v.file != "":
		return errcode.New(errcode.Usage, "--models and --variants cannot be used together").
			WithHint("give the models as variants in the --variants file: - {name: %s, model: ...}", "NAME")
	case v.models != "":
		v.set, err = variant.FromModels(v.models)
	case v.file != "":
		v.set, err = variant.Load(v.file)
	}
	return err
}

// args is the flag that gives the run its variants again, for its resume
// command; path maps the file's path.
func (v variantOptions) args(path func(string) string) []string {
	switch {
	case v.models != "":
		return []string{"--models", v.models}
	case v.file != "":
		return []string{"--variants", path(v.file)}
	}
	return nil
}

// fingerprint is the variants' part of the run's fingerprint: "" (left
// out, so runs before variants resume) for none.
func (v variantOptions) fingerprint() string { return v.set.Digest() }

// check refuses, before any case, variants the capsule cannot take (a
// script capsule has no inference block to change; a process capsule's CLI
// takes no endpoint, API or config): every case of theirs would fail the
// same way. m is nil when the manifest does not load; its error comes
// from the run's own reading.
func (v variantOptions) check(m *capsule.Manifest) error {
	if m == nil || v.set.Len() == 0 {
		return nil
	}
	if m.Inference == nil {
		return errcode.New(errcode.Variants, "%s: the capsule has no inference block (a script capsule) for them to change", v.flag()).
			WithHint("run a script capsule without --models and --variants")
	}
	for _, vr := range v.set.All() {
		if _, err := vr.Apply(m.Inference); err != nil {
			return err
		}
	}
	return nil
}

// flag names the flag the variants came from.
func (v variantOptions) flag() string {
	if v.models != "" {
		return "--models"
	}
	return "--variants " + v.file
}
