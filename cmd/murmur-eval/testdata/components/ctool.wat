;; A component tool for the agent-loop tests, lowered by hand as
;; wit-bindgen would (world tool of sandbox/component/testdata/fixtures.wit).
;; The model's input is JSON {"op":"<mode>",...}: byte 7 picks the mode.
;;   e  passed, data = the whole input, summary "echoed", metadata state_effect=read
;;   c  emits the input as a murmur:text/chunks chunk; passed, data "chunked"
;;   x  failed, summary "refused", no data
;;   s  spins forever        m  grows memory until refused
(module
  (import "murmur:text/chunks@0.1.0" "emit-chunk" (func $emit (param i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 500) "state_effect")
  (data (i32.const 520) "read")
  (data (i32.const 540) "\f4\01\00\00\0c\00\00\00\08\02\00\00\04\00\00\00")
  (data (i32.const 560) "echoed")
  (data (i32.const 570) "chunked")
  (data (i32.const 580) "refused")

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  ;; tool-result at 16: status @16, summary @20, data @32, data-path @44,
  ;; truncated @56, metadata @60 (ptr, len)
  (func $result (param $status i32) (param $sp i32) (param $sl i32) (param $dp i32) (param $dl i32) (param $meta i32) (result i32)
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 52))
    (i32.store8 (i32.const 16) (local.get $status))
    (if (local.get $sl) (then
      (i32.store8 (i32.const 20) (i32.const 1))
      (i32.store (i32.const 24) (local.get $sp))
      (i32.store (i32.const 28) (local.get $sl))))
    (if (local.get $dl) (then
      (i32.store8 (i32.const 32) (i32.const 1))
      (i32.store (i32.const 36) (local.get $dp))
      (i32.store (i32.const 40) (local.get $dl))))
    (i32.store (i32.const 60) (i32.const 540))
    (i32.store (i32.const 64) (local.get $meta))
    (i32.const 16))

  (func (export "murmur:tool/run@0.1.0#run")
    (param $dd i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (local $mode i32)
    (if (i32.or (i32.eqz (local.get $dd)) (i32.lt_u (local.get $dl) (i32.const 8)))
      (then (return (call $result (i32.const 2) (i32.const 580) (i32.const 7) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (local.set $mode (i32.load8_u (i32.add (local.get $dp) (i32.const 7))))
    (if (i32.eq (local.get $mode) (i32.const 0x65)) ;; e
      (then (return (call $result (i32.const 0) (i32.const 560) (i32.const 6) (local.get $dp) (local.get $dl) (i32.const 1)))))
    (if (i32.eq (local.get $mode) (i32.const 0x63)) ;; c
      (then
        (call $emit (local.get $dp) (local.get $dl))
        (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 570) (i32.const 7) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x73)) ;; s
      (then (loop $spin (br $spin))))
    (if (i32.eq (local.get $mode) (i32.const 0x6d)) ;; m
      (then
        (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        (unreachable)))
    (call $result (i32.const 1) (i32.const 580) (i32.const 7) (i32.const 0) (i32.const 0) (i32.const 0)))

  (func (export "cabi_post_murmur:tool/run@0.1.0#run") (param i32))
)
