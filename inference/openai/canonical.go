package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// normalize rewrites the numbers of a decoded JSON value as murmur's
// driver prints them (checked by hand against murmur-driver-openai): an
// integer that fits 64 bits as it is, any other number as an f64, in
// decimals with at least one fraction digit (1.50 → 1.5, 1e2 → 100.0)
// from 1e-5 to below 1e16, else as shortest digits and an exponent
// (1e-6, 1e+16, 1.2345678901234568e+22). A number past the f64 range does
// not parse.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return number(x)
	case map[string]any:
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}

func number(n json.Number) (json.Number, error) {
	s := n.String()
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10)), nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return json.Number(strconv.FormatUint(u, 10)), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", fmt.Errorf("number out of range")
	}
	return json.Number(formatFloat(f)), nil
}

// formatFloat is the driver's printing of a non-integer number.
func formatFloat(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64) // "-1.2345e+17"
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if f != 0 && (x < -5 || x >= 16) {
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		return mant + "e" + sign + strconv.Itoa(x)
	}
	d := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(d, ".") {
		d += ".0"
	}
	return d
}
