package reports

import "github.com/murmur-nexus/murmur-eval/pipeline"

// VariantOf is a case's variant as its rows carry it: nil (null) in a run
// without variants. The rows of one case share the one string.
func VariantOf(c *pipeline.Case) *string {
	if c.Variant == "" {
		return nil
	}
	v := c.Variant
	return &v
}

// VariantName is a row's variant column as a name: "" for null.
func VariantName(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}
