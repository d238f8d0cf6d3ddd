package main

import (
	"fmt"
	"runtime"
	"strings"
)

// errorCodes are wasi:http's error-code cases, in order, as the Rust
// bindings murmur's driver is built with name them in its messages.
var errorCodes = []string{
	"DnsTimeout", "DnsError", "DestinationNotFound", "DestinationUnavailable",
	"DestinationIpProhibited", "DestinationIpUnroutable", "ConnectionRefused",
	"ConnectionTerminated", "ConnectionTimeout", "ConnectionReadTimeout",
	"ConnectionWriteTimeout", "ConnectionLimitReached", "TlsProtocolError",
	"TlsCertificateError", "TlsAlertReceived", "HttpRequestDenied",
	"HttpRequestLengthRequired", "HttpRequestBodySize", "HttpRequestMethodInvalid",
	"HttpRequestUriInvalid", "HttpRequestUriTooLong", "HttpRequestHeaderSectionSize",
	"HttpRequestHeaderSize", "HttpRequestTrailerSectionSize", "HttpRequestTrailerSize",
	"HttpResponseIncomplete", "HttpResponseHeaderSectionSize", "HttpResponseHeaderSize",
	"HttpResponseBodySize", "HttpResponseTrailerSectionSize", "HttpResponseTrailerSize",
	"HttpResponseTransferCoding", "HttpResponseContentCoding", "HttpResponseTimeout",
	"HttpUpgradeFailed", "HttpProtocolError", "LoopDetected", "ConfigurationError",
	"InternalError",
}

// codeError is what murmur's driver says of an error-code at r[off]:
// "<what>: ErrorCode::Name", with the payload of the body-size cases.
func codeError(what string, r *retArea, off int) error {
	code := r.u8(off)
	name := "Unknown"
	if int(code) < len(errorCodes) {
		name = errorCodes[code]
	}
	switch name {
	case "HttpRequestBodySize", "HttpResponseBodySize":
		if r.u8(off+8) == 0 {
			name += "(None)"
		} else {
			name += fmt.Sprintf("(Some(%d))", uint64(r.u32(off+16))|uint64(r.u32(off+20))<<32)
		}
	}
	return fmt.Errorf("%s: ErrorCode::%s", what, name)
}

// post sends body to url with headers through wasi:http and returns the
// status and the whole response body.
func post(url string, headers [][2]string, body []byte) (int, []byte, error) {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return 0, nil, fmt.Errorf("endpoint %q has no scheme", url)
	}
	authority, path := rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	var r retArea
	fields := newFields()
	for _, h := range headers {
		np, nn := strPtr(h[0])
		vp, vn := strPtr(h[1])
		fieldsAppend(fields, np, nn, vp, vn, r.ptr())
		runtime.KeepAlive(h)
		if r.u8(0) != 0 {
			return 0, nil, fmt.Errorf("header %s refused", h[0])
		}
	}
	req := newOutgoingRequest(fields)
	setMethod(req, 2, nil, 0) // post
	switch scheme {
	case "http":
		setScheme(req, 1, 0, nil, 0)
	case "https":
		setScheme(req, 1, 1, nil, 0)
	default:
		p, n := strPtr(scheme)
		setScheme(req, 1, 2, p, n)
		runtime.KeepAlive(scheme)
	}
	ap, an := strPtr(authority)
	setAuthority(req, 1, ap, an)
	pp, pn := strPtr(path)
	setPathWithQuery(req, 1, pp, pn)
	runtime.KeepAlive(authority)
	runtime.KeepAlive(path)
	outgoingRequestBody(req, r.ptr())
	if r.u8(0) != 0 {
		return 0, nil, fmt.Errorf("request body unavailable")
	}
	ob := r.u32(4)
	handle(req, 0, 0, r.ptr())
	if r.u8(0) != 0 {
		return 0, nil, codeError("driver: failed to dispatch HTTP request", &r, 8)
	}
	fut := r.u32(8)
	if err := writeBody(ob, body); err != nil {
		return 0, nil, err
	}
	p := futureSubscribe(fut)
	pollableBlock(p)
	dropPollable(p)
	futureGet(fut, r.ptr())
	dropFuture(fut)
	switch {
	case r.u8(0) == 0:
		return 0, nil, fmt.Errorf("HTTP response not ready")
	case r.u8(8) != 0:
		return 0, nil, fmt.Errorf("HTTP response already taken")
	case r.u8(16) != 0:
		return 0, nil, codeError("driver: transport error while awaiting response", &r, 24)
	}
	resp := r.u32(24)
	status := int(responseStatus(resp))
	data, err := readBody(resp)
	dropResponse(resp)
	return status, data, err
}

func writeBody(ob uint32, body []byte) error {
	var r retArea
	outgoingBodyWrite(ob, r.ptr())
	if r.u8(0) != 0 {
		return fmt.Errorf("request body stream unavailable")
	}
	os := r.u32(4)
	for len(body) > 0 {
		n := min(len(body), 4096) // blocking-write-and-flush takes at most 4096 bytes
		blockingWriteAndFlush(os, ptrOf(body), uint32(n), r.ptr())
		if r.u8(0) != 0 {
			return fmt.Errorf("writing the request body failed")
		}
		body = body[n:]
	}
	dropOutputStream(os)
	outgoingBodyFinish(ob, 0, 0, r.ptr())
	if r.u8(0) != 0 {
		return codeError("driver: failed to finish the request body", &r, 8)
	}
	return nil
}

func readBody(resp uint32) ([]byte, error) {
	var r retArea
	responseConsume(resp, r.ptr())
	if r.u8(0) != 0 {
		return nil, fmt.Errorf("response body unavailable")
	}
	ib := r.u32(4)
	incomingBodyStream(ib, r.ptr())
	if r.u8(0) != 0 {
		return nil, fmt.Errorf("response body stream unavailable")
	}
	is := r.u32(4)
	defer func() { dropInputStream(is); dropIncomingBody(ib) }()
	var out []byte
	for {
		m := arenaMark()
		blockingRead(is, 64<<10, r.ptr())
		if r.u8(0) == 0 {
			out = append(out, bytesAt(r.u32(4), r.u32(8))...)
			arenaRelease(m)
			continue
		}
		arenaRelease(m)
		if r.u8(4) == 1 { // closed
			return out, nil
		}
		// murmur's driver names the stream error's handle, not its
		// error-code.
		e := r.u32(8)
		dropError(e)
		return nil, fmt.Errorf("driver: failed to read response stream: StreamError::LastOperationFailed(Error { handle: Resource { handle: %d } })", e)
	}
}
