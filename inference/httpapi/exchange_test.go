package httpapi

import (
	"errors"
	"syscall"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestExchangeHarnessError(t *testing.T) {
	declared := errcode.New(errcode.EndpointUnreachable, "driver: the model endpoint cannot be reached")
	tests := []struct {
		name string
		x    Exchange
		code string // "" for no harness error
	}{
		{"401", Exchange{Status: 401}, errcode.ProviderAuth},
		{"403", Exchange{Status: 403}, errcode.ProviderAuth},
		{"400 is the provider's answer", Exchange{Status: 400}, ""},
		{"429 is the provider's answer", Exchange{Status: 429}, ""},
		{"200", Exchange{Status: 200, Body: []byte("{}")}, ""},
		{"declared unreachable", Exchange{Err: declared}, errcode.EndpointUnreachable},
		{"no answer", Exchange{Err: errors.New("connection reset by peer")}, errcode.ProviderUnavailable},
		{"refused", Exchange{Err: syscall.ECONNREFUSED}, errcode.ProviderUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Exchange{Endpoint: "http://127.0.0.1:1", Status: tt.x.Status, Err: tt.x.Err}.HarnessError(`{"error":"HTTP 401: bad key"}`)
			if errcode.Code(err) != tt.code {
				t.Errorf("HarnessError = %v (code %q), want code %q", err, errcode.Code(err), tt.code)
			}
		})
	}
}
