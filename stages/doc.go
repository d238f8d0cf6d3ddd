// Package stages is the run's stage table: the seven stages of
// stages/<name>/, each under the declaration its package exports
// (pipeline.Decl: name, result, requires, shared, live, despite failure),
// wired once (New) for cmd/murmur-eval and for the tests alike. The table
// also owns the run-wide resources the stages share (Runtime: the WASM
// engine and the capsule's Spawner; the dataset commands' launcher) and
// injects them, so no stage closes what another made: Table.Close closes
// them after the run's last case, and the executor closes the results
// that hold something open (pipeline.Closer).
package stages
