package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEval(t *testing.T) {
	tests := []struct {
		expr string
		want string // Format of the value; "" when Eval must fail
	}{
		{"6*7", "42"},
		{" 6 * 7 ", "42"},
		{"1+2*3", "7"},
		{"(1+2)*3", "9"},
		{"(2 + 3) * 4 - 10 / 4", "17.5"},
		{"10-4-3", "3"},
		{"2/4/2", "0.25"},
		{"-1.5 * (2 - -0.5)", "-3.75"},
		{"--2", "2"},
		{"+3", "3"},
		{"-(2+3)", "-5"},
		{".5+.25", "0.75"},
		{"0.1+0.2", "0.3"},
		{"240*12.5/100", "30"},
		{"1/3", "0.333333333333333"},
		{"-0", "0"},
		{"((((7))))", "7"},
		{strings.Repeat("(", 64) + "1" + strings.Repeat(")", 64), "1"},
		{"1/(3-3)", ""},
		{"5/0", ""},
		{"", ""},
		{"   ", ""},
		{"2+", ""},
		{"2 3", ""},
		{"(2+3", ""},
		{"2+3)", ""},
		{"()", ""},
		{"1.2.3", ""},
		{"5.", ""},
		{".", ""},
		{"2^3", ""},
		{"six*7", ""},
		{"2(3)", ""},
		{"1e3", ""},
		{"é", ""},
		{strings.Repeat("9", 400) + "*1", ""},
		{strings.Repeat("9", 300) + "*" + strings.Repeat("9", 300), ""},
		{strings.Repeat("(", 65) + "1" + strings.Repeat(")", 65), ""},
		{strings.Repeat("-", 100) + "1", ""},
	}
	for _, tt := range tests {
		v, err := Eval(tt.expr)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("Eval(%.30q) = %v, nil; want an error", tt.expr, v)
		case tt.want != "" && err != nil:
			t.Errorf("Eval(%.30q) error: %v; want %s", tt.expr, err, tt.want)
		case tt.want != "" && Format(v) != tt.want:
			t.Errorf("Eval(%.30q) = %s, want %s", tt.expr, Format(v), tt.want)
		}
	}
}

func TestServe(t *testing.T) {
	tests := []struct {
		name       string
		stdin      string
		wantStatus string
		wantData   string // checked when not ""
	}{
		{"passed", `{"data": "{\"expression\": \"6*7\"}", "log_path": null}`, "passed", "42"},
		{"division by zero", `{"data": "{\"expression\": \"1/(3-3)\"}", "log_path": null}`, "failed", "division by zero at position 2"},
		{"malformed expression", `{"data": "{\"expression\": \"2+\"}"}`, "failed", ""},
		{"no expression", `{"data": "{\"expr\": \"2\"}"}`, "failed", ""},
		{"expression not a string", `{"data": "{\"expression\": 2}"}`, "failed", ""},
		{"data not JSON", `{"data": "6*7"}`, "failed", ""},
		{"data null", `{"data": null, "log_path": null}`, "failed", ""},
		{"stdin not JSON", `6*7`, "error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve([]byte(tt.stdin))
			if got.Status != tt.wantStatus || (tt.wantData != "" && got.Data != tt.wantData) {
				t.Errorf("serve() = %+v, want status %q data %q", got, tt.wantStatus, tt.wantData)
			}
			if got.Summary == "" {
				t.Errorf("serve() = %+v, want a summary", got)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("result does not encode: %v", err)
			}
		})
	}
}
