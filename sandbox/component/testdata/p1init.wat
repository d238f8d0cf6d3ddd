;; A preview-1 reactor in the shape Go's wasip1 c-shared builds have: it
;; exports _initialize (wit-component's fixup then imports it from "main")
;; and imports fd_write twice (wit-component renames the second
;; "fd_write [v2]"). run writes its input to stdout through the second
;; import and returns "init=<n>", n the times _initialize ran.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write2 (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 8192))
  (global $inits (mut i32) (i32.const 0))
  (func (export "_initialize")
    (global.set $inits (i32.add (global.get $inits) (i32.const 1))))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (loop $grow
      (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
        (then (drop (memory.grow (i32.const 1))) (br $grow))))
    (local.get $p))
  (func (export "murmur:tool/run@0.1.0#run")
    (param $dd i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (i32.store (i32.const 200) (local.get $dp))
    (i32.store (i32.const 204) (local.get $dl))
    (drop (call $fd_write2 (i32.const 1) (i32.const 200) (i32.const 1) (i32.const 208)))
    ;; "init=" then the digit
    (i32.store (i32.const 300) (i32.const 0x74696e69)) ;; "init"
    (i32.store8 (i32.const 304) (i32.const 0x3d))      ;; "="
    (i32.store8 (i32.const 305) (i32.add (i32.const 0x30) (global.get $inits)))
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 52))
    (i32.store8 (i32.const 32) (i32.const 1))
    (i32.store (i32.const 36) (i32.const 300))
    (i32.store (i32.const 40) (i32.const 6))
    (i32.store (i32.const 60) (i32.const 4))
    (i32.const 16))
)
