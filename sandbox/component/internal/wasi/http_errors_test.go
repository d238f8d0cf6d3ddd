package wasi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abitest"
)

// TestMapHTTPError: Go's transport errors become the error-code cases
// wasmtime gives for the same failures.
func TestMapHTTPError(t *testing.T) {
	dial := func(err error) error {
		return fmt.Errorf("Get \"http://x/\": %w", &net.OpError{Op: "dial", Net: "tcp", Err: err})
	}
	tests := []struct {
		name string
		err  error
		code byte
	}{
		{"DNS not found", &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}, ecDNSError},
		{"DNS timeout", &net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}, ecDNSTimeout},
		{"refused", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), ecConnRefused},
		{"unreachable", dial(os.NewSyscallError("connect", syscall.EHOSTUNREACH)), ecDestUnavailable},
		{"dial timeout", dial(timeoutErr{}), ecConnTimeout},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), ecConnTerminated},
		{"unknown authority", fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}), ecTLSCertificate},
		{"alert", fmt.Errorf("remote error: %w", tls.AlertError(40)), ecTLSAlert},
		{"plain server", errors.New("http: server gave HTTP response to HTTPS client"), ecTLSProtocol},
		{"cut short", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), ecResponseIncomplete},
		{"anything else", errors.New("strange"), ecInternal},
	}
	for _, tt := range tests {
		if got := mapHTTPError(tt.err); got.code != tt.code {
			t.Errorf("%s: case %d, want %d", tt.name, got.code, tt.code)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestLowerErrorCode checks error-code's canonical layout (size 32, align
// 8, the case at 0, the payload at 8) for the cases with payloads.
func TestLowerErrorCode(t *testing.T) {
	rcode, msg := "no such host", "boom"
	alert := uint8(40)
	n := uint64(1 << 40)
	mem, b := abitest.Memory(t)
	s := &Host{Frame: abi.Frame{Mem: mem, Realloc: &abitest.Bump{Next: 1024}}}
	for i := range b[:64] {
		b[i] = 0xee // junk the lowering must clear
	}
	str := func(at uint32) string {
		p, l := binary.LittleEndian.Uint32(b[at:]), binary.LittleEndian.Uint32(b[at+4:])
		return string(b[p : p+l])
	}
	ctx := context.Background()

	s.lowerErrorCode(ctx, 0, &httpErr{code: ecDNSError, msg: &rcode})
	if b[0] != ecDNSError || b[8] != 1 || str(12) != rcode || b[20] != 0 {
		t.Errorf("DNS-error lowered as % x", b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecTLSAlert, alertID: &alert, msg: &msg})
	if b[0] != ecTLSAlert || b[8] != 1 || b[9] != 40 || b[12] != 1 || str(16) != msg {
		t.Errorf("TLS-alert-received lowered as % x", b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecResponseBodySize, size: &n})
	if b[0] != ecResponseBodySize || b[8] != 1 || binary.LittleEndian.Uint64(b[16:]) != n {
		t.Errorf("HTTP-response-body-size lowered as % x", b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecInternal, msg: &msg})
	if b[0] != ecInternal || b[8] != 1 || str(12) != msg {
		t.Errorf("internal-error lowered as % x", b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecRequestDenied})
	for i, b := range b[1:32] {
		if b != 0 {
			t.Fatalf("HTTP-request-denied left byte %d = %#x", i+1, b)
		}
	}
}
