// Package capsule reads murmur's formats: the capsule manifest murmur.yaml,
// the murmur.lock pin file, .mur.zip artifact archives and the local registry
// stores that hold them. It also packs and publishes artifacts the way
// `mur build` and `mur publish` do, so examples can be built without murmur.
//
// Every behaviour follows murmur-formats.md (§1–§4, §6); where murmur has an
// error code for a failure, the error carries it (see package errcode). The
// package reads no environment variables: callers pass a lookup function down.
//
// Everything here is safe for concurrent use: parsed values are plain data and
// a Registry only reads the filesystem.
package capsule
