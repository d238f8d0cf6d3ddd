//go:build !wasip1

package main

// askModel exists only in the wasip1 build; this stub lets the package
// build and vet on the host.
func askModel(any) map[string]any { return map[string]any{"error": "not wasip1"} }
