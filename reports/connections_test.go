package reports

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConnectionLines(t *testing.T) {
	tests := []struct {
		name  string
		conns []ConnectionsDigest
		want  []string
	}{
		{"none", nil, nil},
		{"never lowered", []ConnectionsDigest{{Endpoint: "http://a:80", MaxAllowed: 8, Min: 8, Max: 8, Final: 8}}, nil},
		{"lowered", []ConnectionsDigest{
			{Endpoint: "https://api.example:443", MaxAllowed: 64, Min: 8, Max: 64, Final: 16, Decreases: 3, Increases: 12, Reasons: []string{"429"}},
			{Endpoint: "http://b:80", Min: 1, Max: 6, Final: 1, Decreases: 1, Reasons: []string{"503", "429"}},
		}, []string{
			"connections to https://api.example:443: 64 -> 8 after 429s, ran between 8 and 64 (3 decreases, 12 increases, 16 at the end)",
			"connections to http://b:80: 6 -> 1 after 503s and 429s, ran between 1 and 6 (1 decrease, 0 increases, 1 at the end)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Digest{Connections: tt.conns}).connectionLines()
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("connectionLines (-got +want):\n%s", diff)
			}
		})
	}
}
