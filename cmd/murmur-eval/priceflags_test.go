package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestPriceOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prices.yaml")
	writeFile(t, file, "date: 2026-12-01\nmodels:\n  house-model: {input: 1, output: 2}\n")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "models: {m: {input: -1, output: 2}}\n")
	abs := func(p string) string { return "/abs/" + filepath.Base(p) }
	tests := []struct {
		flag   string
		code   string // of load's error; "" none
		model  string // a model the table prices; "" no table
		date   string
		resume string
	}{
		{"", "", "gpt-4o", pricing.BuiltinDate, ""},
		{"off", "", "", "", "--prices off"},
		{file, "", "house-model", "2026-12-01", "--prices /abs/prices.yaml"},
		{bad, errcode.Prices, "", "", ""},
		{filepath.Join(t.TempDir(), "none.yaml"), errcode.IONotFound, "", "", ""},
	}
	for _, tt := range tests {
		p := priceOptions{file: tt.flag}
		err := p.load()
		if errcode.Code(err) != tt.code {
			t.Errorf("--prices %q: load = %v, want code %q", tt.flag, err, tt.code)
			continue
		}
		if err != nil {
			continue
		}
		if _, ok := p.table.Lookup(tt.model); ok != (tt.model != "") || p.date() != tt.date {
			t.Errorf("--prices %q: prices %s %t, date %q, want %t, %q", tt.flag, tt.model, ok, p.date(), tt.model != "", tt.date)
		}
		if got := strings.Join(p.args(abs), " "); got != tt.resume {
			t.Errorf("--prices %q: resume args %q, want %q", tt.flag, got, tt.resume)
		}
		var s reports.Summary
		d := s.Digest(0)
		p.setCost(&d, &s)
		if (d.CostUSD != nil) != (p.table != nil) || d.CostUSD != nil && d.CostUSD.PricesDate != tt.date {
			t.Errorf("--prices %q: summary cost_usd %+v", tt.flag, d.CostUSD)
		}
	}
}

func TestWarnUnpriced(t *testing.T) {
	var b bytes.Buffer
	warnUnpriced(&b, pricing.Builtin(), []string{"gpt-4o", "house-model", "", "house-model", "judge-x"})
	out := b.String()
	if strings.Count(out, "murmur-eval: warning[E-EVL-008]: no price for model") != 2 || !strings.Contains(out, `"house-model"`) || !strings.Contains(out, `"judge-x"`) || strings.Contains(out, "gpt-4o\"") {
		t.Errorf("warnings:\n%s", out)
	}
	b.Reset()
	warnUnpriced(&b, nil, []string{"house-model"})
	if b.Len() != 0 {
		t.Errorf("--prices off warned:\n%s", b.String())
	}
}
