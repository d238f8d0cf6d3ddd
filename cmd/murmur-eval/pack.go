package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

const packUsage = `Usage: murmur-eval pack ARTIFACT_DIR -o FILE.mur.zip [--store DIR]
       murmur-eval pack ARTIFACT_DIR... --store DIR

Packs each artifact folder (its murmur.yaml first, then its requires_files,
nothing else) into a .mur.zip, with the checks 'mur build' makes.

With -o, the archive is written to FILE.mur.zip and its SHA-256 to the
sidecar FILE.sha256 beside it. With --store, it is put in a murmur artifact
store (<DIR>/<name>/<version>/<name>-<version>.mur.zip with its .sha256 and
.meta.json), as 'mur install' would; a capsule's project store is
<capsule>/.murmur/artifacts.
`

func runPack(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("murmur-eval pack", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, packUsage); fs.PrintDefaults() }
	store := fs.String("store", "", "artifact store to put the packed artifacts in")
	out := fs.StringP("output", "o", "", "archive to write (must end in .mur.zip); one ARTIFACT_DIR only")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval pack --help"))
	}
	var usage *errcode.Error
	switch {
	case fs.NArg() == 0 || (*store == "" && *out == ""):
		usage = errcode.New(errcode.Usage, "pack needs ARTIFACT_DIR and -o FILE.mur.zip or --store DIR").
			WithHint("murmur-eval pack tools/calc -o calc-0.1.0.mur.zip")
	case *out != "" && fs.NArg() > 1:
		usage = errcode.New(errcode.Usage, "pack -o writes one archive but %d ARTIFACT_DIRs were given", fs.NArg()).
			WithHint("pack the folders one by one, or use --store DIR")
	}
	if usage != nil {
		fmt.Fprintln(stderr, errcode.Format(usage))
		return exitUsage
	}
	for _, dir := range fs.Args() {
		if err := packOne(dir, *out, *store, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, errcode.Format(err))
			return exitUsage
		}
	}
	return exitOK
}

// packOne packs dir and writes it to out and/or store, printing the build
// lints as murmur's warnings.
func packOne(dir, out, store string, stdout, stderr io.Writer) error {
	var exclude []string
	if out != "" {
		exclude = append(exclude, out)
	}
	p, err := capsule.Pack(dir, exclude...)
	if err != nil {
		return err
	}
	for _, w := range p.Warnings {
		code, msg, _ := strings.Cut(w, ": ")
		fmt.Fprintf(stderr, "warning[%s]: %s\n", code, msg)
	}
	ref := p.Manifest.Name + "@" + p.Manifest.Version
	sum := capsule.SHA256Hex(p.Zip)
	if out != "" {
		sidecar, err := capsule.WriteArchive(p, out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "packed %s -> %s (sha256 %s in %s)\n", ref, out, sum, sidecar)
	}
	if store != "" {
		path, err := capsule.Publish(store, p.Zip, p.Manifest)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "packed %s -> %s (sha256 %s)\n", ref, path, sum)
	}
	return nil
}
