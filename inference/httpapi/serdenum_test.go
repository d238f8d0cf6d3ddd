package httpapi

import (
	"strings"
	"testing"
)

// TestSerdeNumbers: numbers in a tool's input as murmur-driver-anthropic
// passed them on, recorded (the input was [1e15,1e16,…] in a JSON answer).
func TestSerdeNumbers(t *testing.T) {
	in := strings.Split("1e15,1e16,1e17,100,100.0,2.50,0.0001,0.00001,1.5e-7,123.456,1e21,12345678901234567890,18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809,-0,-0.0,0.0,0,1e-400,5e-324,1.7976931348623157e308,0.1,1234567.125,1e0,1E2,3.0e1,99999999999999999,1e22,1.5e300,-1.25e-10,0.000123,123456789.0", ",")
	want := strings.Split("1000000000000000.0,1e+16,1e+17,100,100.0,2.5,0.0001,0.00001,1.5e-7,123.456,1e+21,12345678901234567890,18446744073709551615,1.8446744073709552e+19,-9223372036854775808,-9.223372036854776e+18,-0.0,-0.0,0.0,0,0.0,5e-324,1.7976931348623157e+308,0.1,1234567.125,1.0,100.0,30.0,99999999999999999,1e+22,1.5e+300,-1.25e-10,0.000123,123456789.0", ",")
	for i, lit := range in {
		if got, err := serdeNumber(lit); got != want[i] || err != nil {
			t.Errorf("serdeNumber(%s) = %s, %v; murmur's driver wrote %s", lit, got, err, want[i])
		}
	}
	for _, lit := range []string{"1e400", "-1e309", "1" + strings.Repeat("0", 400)} {
		if _, err := serdeNumber(lit); err == nil {
			t.Errorf("serdeNumber(%s...) accepted a number beyond f64", lit[:6])
		}
	}
}
