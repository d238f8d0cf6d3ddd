// Package driver runs model turns through the capsule's own driver
// component, as murmur does (murmur-session.md §1.4, §1.8, §2.1): each
// turn's canonical request goes to the driver as tool-input.data (only the
// messages the driver has not seen, with continuation_id, when it asked to
// continue), and its tool-result drives the loop: status passed with the
// canonical response as data, or any other status ending the session
// failed. Cases whose driver artifact is not installed are served by a
// fallback source (the built-in providers) when their driver is one
// murmur-eval speaks natively, and refused as murmur refuses them
// otherwise (E-RUN-006).
//
// The component itself is bound to the case by the Launch stage
// (inference.Case.Driver); this package knows no WebAssembly.
package driver
