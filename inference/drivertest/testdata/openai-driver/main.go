// Command openai-driver is a test fixture: a murmur driver component
// (world driver: exports murmur:tool/run@0.1.0, makes its HTTP request
// through wasi:http) that speaks OpenAI's chat completions API, written to
// behave as murmur's own murmur-driver-openai does on the exchanges
// inference/drivertest checks. It reads MURMUR_INFERENCE_ENDPOINT,
// _MODEL, _API_KEY and _DRIVER_CONFIG from its environment. Built with
// GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared and wrapped by jco
// with the preview-1 reactor adapter (inference/drivertest.BuildOpenAI).
package main

import (
	"unsafe"
)

func main() {}

// result is the tool-result the run export returns (52 bytes, 4-aligned),
// and keep holds the strings it points to until the next call.
var (
	result [64]byte
	keep   []string
)

//go:wasmexport murmur:tool/run@0.1.0#run
func run(dataSome, dataPtr, dataLen, logSome, logPtr, logLen uint32) unsafe.Pointer {
	var input []byte
	if dataSome != 0 {
		input = bytesAt(dataPtr, dataLen)
	}
	data, failed := drive(input, environ())
	keep = []string{data}
	clear(result[:])
	if failed {
		result[0] = 2      // error
		putString(4, data) // summary: the message, as murmur's driver
		keep = append(keep, data)
	}
	putString(16, canonicalOrSelf(data, failed))
	put32(44, 4) // an empty metadata list at a non-null address
	return unsafe.Pointer(&result[0])
}

func putString(off int, s string) {
	keep = append(keep, s)
	result[off] = 1
	p, n := strPtr(s)
	put32(off+4, uint32(uintptr(p)))
	put32(off+8, n)
}

func put32(off int, v uint32) {
	result[off], result[off+1], result[off+2], result[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
