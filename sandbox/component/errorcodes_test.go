package component

// The error-code cases the fixtures report (as 'A' + the case), by their
// index in WIT (wasi:filesystem/types and wasi:http/types 0.2): the WASI
// layer (internal/wasi) numbers them the same way.
const (
	ecNoEntry      = 20 // wasi:filesystem error-code no-entry
	ecNotPermitted = 31 // wasi:filesystem error-code not-permitted

	ecConnRefused      = 6  // wasi:http error-code connection-refused
	ecTLSProtocol      = 12 // TLS-protocol-error
	ecTLSCertificate   = 13 // TLS-certificate-error
	ecRequestDenied    = 15 // HTTP-request-denied
	ecResponseBodySize = 28 // HTTP-response-body-size
	ecProtocolError    = 35 // HTTP-protocol-error
)
