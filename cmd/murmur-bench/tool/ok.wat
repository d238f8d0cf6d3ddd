;; ok: the smallest murmur tool. A WASI preview 1 command module whose
;; _start writes one passed tool result to stdout and returns. It reads no
;; input, so a call costs what murmur-eval itself spends on instantiating,
;; running and closing a guest, and nothing else.
;;
;; ok.wasm beside it is this file assembled (wat2wasm ok.wat, from WABT);
;; TestOKWasmMatchesWat checks the two agree when wat2wasm is installed.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; At 0 an iovec {buf = 8, len = 32}; at 8 the 32 bytes of the result.
  (data (i32.const 0) "\08\00\00\00\20\00\00\00{\"status\":\"passed\",\"data\":\"ok\"}\n")
  (func (export "_start")
    ;; fd_write(stdout, iovs = 0, iovs_len = 1, nwritten = 64)
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 64)))))
