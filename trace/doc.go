// Package trace writes murmur's per-session trace.jsonl (murmur-session.md §3):
// one JSON object per line, the common fields event_type, session_id and
// timestamp (Unix ms) first, then each event's fields in murmur's order, so
// `mur trace` reads what murmur-eval writes.
//
// A Writer also keeps each line it wrote, so the case's events can be fed to
// events.parquet without reading the file back.
package trace
