// Package inference is murmur-eval's side of the model: murmur's canonical
// request and response formats (murmur-session.md §2.1) and the Provider
// interface the Loop stage talks to. Providers live in subpackages
// (replay/; the HTTP and process transports come later).
package inference
