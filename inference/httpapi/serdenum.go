package httpapi

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// errOutOfRange is serde_json's refusal of a number beyond f64.
var errOutOfRange = errors.New("number out of range")

// SerdeNumbers rewrites every number of a tree decoded with UseNumber
// (json.Number) as serde_json writes the value it parsed, which is what
// murmur's drivers pass on (checked by hand against both): an integer that fits in u64 (or, when
// negative, in i64) as the integer; anything else as the f64 it is,
// written as ryu writes it (100.0, 2.5, 0.00001, 1e+16, 1.5e-7, -0.0).
// A number beyond f64 is serde's "number out of range".
func SerdeNumbers(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		s, err := serdeNumber(string(t))
		return json.Number(s), err
	case []any:
		for i := range t {
			var err error
			if t[i], err = SerdeNumbers(t[i]); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k, e := range t {
			n, err := SerdeNumbers(e)
			if err != nil {
				return nil, err
			}
			t[k] = n
		}
	}
	return v, nil
}

func serdeNumber(lit string) (string, error) {
	if !strings.ContainsAny(lit, ".eE") && lit != "-0" {
		if n, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return strconv.FormatUint(n, 10), nil
		}
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return strconv.FormatInt(n, 10), nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "", errOutOfRange // the literal is valid JSON: only the range can fail
	}
	return ryu(f), nil
}

// ryu writes a finite f64 with the fewest digits that read back to it, as
// serde_json does: plain decimals while the decimal point falls within 16
// digits of the first (1000000000000000.0, 0.00001), scientific beyond
// (1e+16, 1.5e-7); a whole number keeps ".0".
func ryu(f float64) string {
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, point := len(digits), x+1 // point: digits before the decimal point
	switch {
	case point >= n && point <= 16:
		return sign + digits + strings.Repeat("0", point-n) + ".0"
	case point > 0 && point <= 16:
		return sign + digits[:point] + "." + digits[point:]
	case point > -5 && point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	}
	exponent := "e+" + strconv.Itoa(x)
	if x < 0 {
		exponent = "e" + strconv.Itoa(x)
	}
	if n == 1 {
		return sign + digits + exponent
	}
	return sign + digits[:1] + "." + digits[1:] + exponent
}
