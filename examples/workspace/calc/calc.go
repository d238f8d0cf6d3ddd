// Package calc is the workspace of examples/workspace: Add has a bug that
// its test finds.
package calc

// Add returns the sum of a and b.
func Add(a, b int) int { return a - b }
