;; script.wat invoking the tool "calc1" with {"expression":"6*7"} instead of "ctool"
;; (TestScriptCapsuleRegistry*).
;; A script capsule for the tests (world capsule of
;; sandbox/component/testdata/fixtures.wit), lowered by hand: run invokes
;; the tool "ctool" through murmur:tool-registry with {"op":"e","n":7}
;; twice (a registry serves a capsule more than once) and writes the second
;; call's data, or the registry's error text, to out/result.txt.
;; The tests make a variant invoking "ghost" by replacing the name (same
;; length).
(module
  (import "wasi:filesystem/preopens@0.2.0" "get-directories" (func $dirs (param i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.open-at"
    (func $open_at (param i32 i32 i32 i32 i32 i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.write-via-stream"
    (func $write_via_stream (param i32 i64 i32)))
  (import "wasi:filesystem/types@0.2.0" "[resource-drop]descriptor" (func $drop_desc (param i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush"
    (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop_out (param i32)))
  (import "murmur:tool-registry/invoke@0.1.0" "invoke"
    (func $invoke (param i32 i32 i32 i32 i32 i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 400) "calc1")
  (data (i32.const 410) "{\"expression\":\"6*7\"}")
  (data (i32.const 440) "out/result.txt")

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  ;; writes [ptr, len) to the file at [path, plen) in the "." preopen
  (func $file (param $path i32) (param $plen i32) (param $ptr i32) (param $len i32)
    (local $h i32)
    (call $dirs (i32.const 128))
    (if (i32.eqz (i32.load (i32.const 132))) (then (unreachable)))
    ;; open-at(preopen, no path flags, path, create|truncate, write)
    (call $open_at (i32.load (i32.load (i32.const 128))) (i32.const 0)
      (local.get $path) (local.get $plen) (i32.const 9) (i32.const 2) (i32.const 144))
    (if (i32.load8_u (i32.const 144)) (then (unreachable)))
    (local.set $h (i32.load (i32.const 148)))
    (call $write_via_stream (local.get $h) (i64.const 0) (i32.const 160))
    (call $drop_desc (local.get $h))
    (if (i32.load8_u (i32.const 160)) (then (unreachable)))
    (local.set $h (i32.load (i32.const 164)))
    (call $write (local.get $h) (local.get $ptr) (local.get $len) (i32.const 176))
    (call $drop_out (local.get $h)))

  (func (export "murmur:capsule/run@0.1.0#run")
    ;; a first invoke, its result (at 512) left unread
    (call $invoke (i32.const 400) (i32.const 5) (i32.const 1) (i32.const 410) (i32.const 20)
      (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 512))
    ;; invoke("ctool", {data: some(input), log-path: none}) -> result at 256
    (call $invoke (i32.const 400) (i32.const 5) (i32.const 1) (i32.const 410) (i32.const 20)
      (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 256))
    (if (i32.load8_u (i32.const 256))
      ;; err: the string at 260
      (then (call $file (i32.const 440) (i32.const 14) (i32.load (i32.const 260)) (i32.load (i32.const 264))))
      ;; ok: tool-result at 260, its data option at 260+16
      (else
        (if (i32.eqz (i32.load8_u (i32.const 276))) (then (unreachable)))
        (call $file (i32.const 440) (i32.const 14) (i32.load (i32.const 280)) (i32.load (i32.const 284))))))
)
