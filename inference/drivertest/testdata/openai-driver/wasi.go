package main

// The WASI 0.2 functions the driver calls, lowered by hand to the
// canonical ABI the way wit-bindgen lowers them: a result that does not
// fit one flat value is written to a return area the caller passes.
// Lists the host returns are allocated with cabi_realloc, which is not Go
// code (see arena.go).

import "unsafe"

//go:wasmimport wasi:cli/environment@0.2.0 get-environment
func getEnvironment(ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [constructor]fields
func newFields() uint32

//go:wasmimport wasi:http/types@0.2.0 [method]fields.append
func fieldsAppend(self uint32, name unsafe.Pointer, nameLen uint32, value unsafe.Pointer, valueLen uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [constructor]outgoing-request
func newOutgoingRequest(headers uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-request.set-method
func setMethod(self, disc uint32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-request.set-scheme
func setScheme(self, some, disc uint32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-request.set-authority
func setAuthority(self, some uint32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-request.set-path-with-query
func setPathWithQuery(self, some uint32, p unsafe.Pointer, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-request.body
func outgoingRequestBody(self uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [method]outgoing-body.write
func outgoingBodyWrite(self uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [static]outgoing-body.finish
func outgoingBodyFinish(self, someTrailers, trailers uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [method]future-incoming-response.subscribe
func futureSubscribe(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]future-incoming-response.get
func futureGet(self uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [resource-drop]future-incoming-response
func dropFuture(self uint32)

//go:wasmimport wasi:http/types@0.2.0 [method]incoming-response.status
func responseStatus(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.0 [method]incoming-response.consume
func responseConsume(self uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [resource-drop]incoming-response
func dropResponse(self uint32)

//go:wasmimport wasi:http/types@0.2.0 [method]incoming-body.stream
func incomingBodyStream(self uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/types@0.2.0 [resource-drop]incoming-body
func dropIncomingBody(self uint32)

//go:wasmimport wasi:http/types@0.2.0 http-error-code
func httpErrorCode(err uint32, ret unsafe.Pointer)

//go:wasmimport wasi:http/outgoing-handler@0.2.0 handle
func handle(request, someOptions, options uint32, ret unsafe.Pointer)

//go:wasmimport wasi:io/poll@0.2.0 [method]pollable.block
func pollableBlock(self uint32)

//go:wasmimport wasi:io/poll@0.2.0 [resource-drop]pollable
func dropPollable(self uint32)

//go:wasmimport wasi:io/streams@0.2.0 [method]input-stream.blocking-read
func blockingRead(self uint32, n uint64, ret unsafe.Pointer)

//go:wasmimport wasi:io/streams@0.2.0 [resource-drop]input-stream
func dropInputStream(self uint32)

//go:wasmimport wasi:io/streams@0.2.0 [method]output-stream.blocking-write-and-flush
func blockingWriteAndFlush(self uint32, p unsafe.Pointer, n uint32, ret unsafe.Pointer)

//go:wasmimport wasi:io/streams@0.2.0 [resource-drop]output-stream
func dropOutputStream(self uint32)

//go:wasmimport wasi:io/error@0.2.0 [resource-drop]error
func dropError(self uint32)

// retArea is the return area every call above writes into: 8-aligned,
// large enough for the biggest result (future-incoming-response.get).
type retArea [64]byte

func (r *retArea) ptr() unsafe.Pointer { return unsafe.Pointer(&r[0]) }
func (r *retArea) u8(off int) uint32   { return uint32(r[off]) }
func (r *retArea) u32(off int) uint32 {
	return uint32(r[off]) | uint32(r[off+1])<<8 | uint32(r[off+2])<<16 | uint32(r[off+3])<<24
}

// bytesAt copies n bytes at guest address p (an arena allocation).
func bytesAt(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), uintptr(p))), n)...)
}

func strPtr(s string) (unsafe.Pointer, uint32) {
	if s == "" {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.StringData(s)), uint32(len(s))
}

// environ is the guest's environment, read once.
func environ() map[string]string {
	var r retArea
	m := arenaMark()
	getEnvironment(r.ptr())
	list, n := r.u32(0), r.u32(4)
	env := make(map[string]string, n)
	for i := uint32(0); i < n; i++ {
		e := bytesAt(list+16*i, 16)
		word := func(o int) uint32 { return uint32(e[o]) | uint32(e[o+1])<<8 | uint32(e[o+2])<<16 | uint32(e[o+3])<<24 }
		env[string(bytesAt(word(0), word(4)))] = string(bytesAt(word(8), word(12)))
	}
	arenaRelease(m)
	return env
}

func ptrOf(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
