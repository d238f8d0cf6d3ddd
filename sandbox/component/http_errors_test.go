package component

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

	"github.com/tetratelabs/wazero/api"
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

// linMem is a linear memory for lowering tests; fakeAlloc a bump
// cabi_realloc over it. Methods a test does not use panic (nil embedded).
type linMem struct {
	api.Memory
	b []byte
}

func (m *linMem) Size() uint32 { return uint32(len(m.b)) }
func (m *linMem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m.b)) {
		return nil, false
	}
	return m.b[off : off+n], true
}
func (m *linMem) Write(off uint32, v []byte) bool {
	if uint64(off)+uint64(len(v)) > uint64(len(m.b)) {
		return false
	}
	copy(m.b[off:], v)
	return true
}

//nolint:govet // api.Memory.WriteByte, not io.ByteWriter
func (m *linMem) WriteByte(off uint32, v byte) bool { return m.Write(off, []byte{v}) }
func (m *linMem) WriteUint32Le(off, v uint32) bool {
	return m.Write(off, binary.LittleEndian.AppendUint32(nil, v))
}
func (m *linMem) WriteUint64Le(off uint32, v uint64) bool {
	return m.Write(off, binary.LittleEndian.AppendUint64(nil, v))
}

type fakeAlloc struct {
	api.Function
	next uint64
}

func (a *fakeAlloc) Call(ctx context.Context, p ...uint64) ([]uint64, error) {
	align, size := p[2], p[3]
	a.next = (a.next + align - 1) &^ (align - 1)
	r := a.next
	a.next += size
	return []uint64{r}, nil
}

// TestLowerErrorCode checks error-code's canonical layout (size 32, align
// 8, the case at 0, the payload at 8) for the cases with payloads.
func TestLowerErrorCode(t *testing.T) {
	rcode, msg := "no such host", "boom"
	alert := uint8(40)
	n := uint64(1 << 40)
	m := &linMem{b: make([]byte, 4096)}
	s := &state{mem: m, realloc: &fakeAlloc{next: 1024}}
	for i := range m.b[:64] {
		m.b[i] = 0xee // junk the lowering must clear
	}
	str := func(at uint32) string {
		p, l := binary.LittleEndian.Uint32(m.b[at:]), binary.LittleEndian.Uint32(m.b[at+4:])
		return string(m.b[p : p+l])
	}
	ctx := context.Background()

	s.lowerErrorCode(ctx, 0, &httpErr{code: ecDNSError, msg: &rcode})
	if m.b[0] != ecDNSError || m.b[8] != 1 || str(12) != rcode || m.b[20] != 0 {
		t.Errorf("DNS-error lowered as % x", m.b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecTLSAlert, alertID: &alert, msg: &msg})
	if m.b[0] != ecTLSAlert || m.b[8] != 1 || m.b[9] != 40 || m.b[12] != 1 || str(16) != msg {
		t.Errorf("TLS-alert-received lowered as % x", m.b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecResponseBodySize, size: &n})
	if m.b[0] != ecResponseBodySize || m.b[8] != 1 || binary.LittleEndian.Uint64(m.b[16:]) != n {
		t.Errorf("HTTP-response-body-size lowered as % x", m.b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecInternal, msg: &msg})
	if m.b[0] != ecInternal || m.b[8] != 1 || str(12) != msg {
		t.Errorf("internal-error lowered as % x", m.b[:32])
	}
	s.lowerErrorCode(ctx, 0, &httpErr{code: ecRequestDenied})
	for i, b := range m.b[1:32] {
		if b != 0 {
			t.Fatalf("HTTP-request-denied left byte %d = %#x", i+1, b)
		}
	}
}
