// Package inference is murmur-eval's side of the model: murmur's canonical
// request and response formats (murmur-session.md §2.1), the Provider and
// Source interfaces the Launch and Loop stages talk to, and what providers
// report besides answers (retries, replay divergences).
//
// Providers live in subpackages: replay/ serves recordings, record/ tees a
// live source into recordings, live/ serves the http transport natively
// through anthropic/ and openai/ (the wire formats) over httpapi/ (the
// shared client: connection limits, retries, trace context).
package inference
