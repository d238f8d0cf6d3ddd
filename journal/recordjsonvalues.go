package journal

import (
	"math"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// The JSON values of the journal record, each written exactly as
// encoding/json writes it with HTML escaping on (json.Marshal's default):
// its floatEncoder.encode restated, and its strings by internal/jsonstr.

// appendJSONString appends s quoted as json.Marshal quotes a string
// (internal/jsonstr).
func appendJSONString(b []byte, s string) []byte {
	b, _ = jsonstr.Append(b, s, jsonstr.Marshal)
	return b
}

func appendJSONInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendJSONFloat appends f as json.Marshal writes a float64: the shortest
// decimal that reads back as f, in 'f' form unless |f| is below 1e-6 or
// from 1e21 on, where it is in 'e' form with a one-digit negative exponent
// not padded (1e-7, not 1e-07). ok is false for NaN and the infinities,
// which JSON cannot hold (json.Marshal fails).
func appendJSONFloat(b []byte, f float64) (out []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}
