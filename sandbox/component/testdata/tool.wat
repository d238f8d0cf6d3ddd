;; A murmur tool as wit-bindgen would lower it, by hand. run's first input
;; byte picks the behaviour; the rest of the input is its argument:
;;   e echo it   f read the file it names through the "." preopen
;;   o write it to stdout   c emit it as a chunk   s spin forever
;;   m grow memory until refused   u invalid UTF-8 in data
;;   t bad status tag   p result pointer out of bounds
;; cabi_realloc returns an out-of-bounds pointer when asked for 13 bytes.
(module
  (import "wasi:cli/stdout@0.2.0" "get-stdout" (func $get_stdout (result i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush"
    (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop_out (param i32)))
  (import "wasi:io/streams@0.2.0" "[method]input-stream.blocking-read" (func $read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]input-stream" (func $drop_in (param i32)))
  (import "wasi:filesystem/preopens@0.2.0" "get-directories" (func $dirs (param i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.open-at"
    (func $open_at (param i32 i32 i32 i32 i32 i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.read-via-stream"
    (func $read_via_stream (param i32 i64 i32)))
  (import "wasi:filesystem/types@0.2.0" "[resource-drop]descriptor" (func $drop_desc (param i32)))
  (import "murmur:text/chunks@0.1.0" "emit-chunk" (func $emit (param i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 300) "\ff")

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (if (i32.eq (local.get 3) (i32.const 13)) (then (return (i32.const 0xfffffff0))))
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  ;; result area at 16: status @16, summary @20, data @32, data-path @44,
  ;; truncated @56, metadata @60 (ptr 4, len 0)
  (func $result (param $status i32) (param $some i32) (param $ptr i32) (param $len i32) (result i32)
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 52))
    (i32.store8 (i32.const 16) (local.get $status))
    (i32.store8 (i32.const 32) (local.get $some))
    (i32.store (i32.const 36) (local.get $ptr))
    (i32.store (i32.const 40) (local.get $len))
    (i32.store (i32.const 60) (i32.const 4))
    (i32.const 16))

  (func (export "murmur:tool/run@0.1.0#run")
    (param $dd i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (local $mode i32) (local $arg i32) (local $n i32) (local $h i32)
    (if (i32.or (i32.eqz (local.get $dd)) (i32.eqz (local.get $dl)))
      (then (return (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (local.set $mode (i32.load8_u (local.get $dp)))
    (local.set $arg (i32.add (local.get $dp) (i32.const 1)))
    (local.set $n (i32.sub (local.get $dl) (i32.const 1)))
    (if (i32.eq (local.get $mode) (i32.const 0x65)) ;; e
      (then (return (call $result (i32.const 0) (i32.const 1) (local.get $arg) (local.get $n)))))
    (if (i32.eq (local.get $mode) (i32.const 0x6f)) ;; o
      (then
        (local.set $h (call $get_stdout))
        (call $write (local.get $h) (local.get $arg) (local.get $n) (i32.const 128))
        (call $drop_out (local.get $h))
        (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x63)) ;; c
      (then
        (call $emit (local.get $arg) (local.get $n))
        (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x73)) ;; s
      (then (loop $spin (br $spin))))
    (if (i32.eq (local.get $mode) (i32.const 0x6d)) ;; m
      (then
        (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        (unreachable)))
    (if (i32.eq (local.get $mode) (i32.const 0x75)) ;; u
      (then (return (call $result (i32.const 0) (i32.const 1) (i32.const 300) (i32.const 1)))))
    (if (i32.eq (local.get $mode) (i32.const 0x74)) ;; t
      (then (return (call $result (i32.const 7) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x70)) ;; p
      (then (return (i32.const 0xfffffff0))))
    (if (i32.eq (local.get $mode) (i32.const 0x66)) ;; f
      (then
        (call $dirs (i32.const 128))
        (if (i32.eqz (i32.load (i32.const 132)))
          (then (return (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))))
        ;; open-at(preopen, symlink-follow, path, no open-flags, read)
        (call $open_at (i32.load (i32.load (i32.const 128))) (i32.const 1)
          (local.get $arg) (local.get $n) (i32.const 0) (i32.const 1) (i32.const 144))
        (if (i32.load8_u (i32.const 144))
          (then
            ;; failed: data is one letter, 'A' + the error-code
            (i32.store8 (i32.const 310) (i32.add (i32.const 0x41) (i32.load8_u (i32.const 148))))
            (return (call $result (i32.const 1) (i32.const 1) (i32.const 310) (i32.const 1)))))
        (local.set $h (i32.load (i32.const 148)))
        (call $read_via_stream (local.get $h) (i64.const 0) (i32.const 160))
        (call $drop_desc (local.get $h))
        (local.set $h (i32.load (i32.const 164)))
        (call $read (local.get $h) (i64.const 4096) (i32.const 176))
        (call $drop_in (local.get $h))
        (if (i32.load8_u (i32.const 176))
          (then (return (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))))
        (return (call $result (i32.const 0) (i32.const 1) (i32.load (i32.const 180)) (i32.load (i32.const 184))))))
    (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))

  (func (export "cabi_post_murmur:tool/run@0.1.0#run") (param i32))
)
