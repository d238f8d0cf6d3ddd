package reports

import (
	"fmt"
	"strings"
)

// ConnectionsDigest is the range one model endpoint's limit on requests
// in flight ran at (--connections adaptive halves it on 429 and 503
// answers and grows it back; docs/providers.md): set by the run command.
type ConnectionsDigest struct {
	Endpoint string `json:"endpoint"`
	// MaxAllowed is --max-connections, 0 for no bound.
	MaxAllowed int `json:"max_allowed"`
	Min        int `json:"min"`
	Max        int `json:"max"`
	Final      int `json:"final"`
	Decreases  int `json:"decreases"`
	Increases  int `json:"increases"`
	// Reasons are the statuses that lowered it ("429", "503").
	Reasons []string `json:"reasons,omitempty"`
}

// connectionLines read, for each endpoint whose limit was lowered,
// "connections to http://host:port: 64 -> 8 after 429s, ran between 8
// and 64 (3 decreases, 5 increases, 16 at the end)".
func (d *Digest) connectionLines() []string {
	var lines []string
	for _, c := range d.Connections {
		if c.Decreases == 0 {
			continue
		}
		after := make([]string, len(c.Reasons))
		for i, r := range c.Reasons {
			after[i] = r + "s"
		}
		lines = append(lines, fmt.Sprintf("connections to %s: %d -> %d after %s, ran between %d and %d (%s, %s, %d at the end)",
			clean(c.Endpoint), c.Max, c.Min, strings.Join(after, " and "), c.Min, c.Max,
			plural(c.Decreases, "decrease"), plural(c.Increases, "increase"), c.Final))
	}
	return lines
}
