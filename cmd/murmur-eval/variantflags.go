package main

import (
	"github.com/spf13/pflag"

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
