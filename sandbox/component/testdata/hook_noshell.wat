;; hook_min.wat without on-shell too (world hook of hook_noshell.wit):
;; murmur refuses it for lacking a required function.
;; A murmur hook that answers ok(none) to every lifecycle event and
;; imports nothing (a stand-in for hooks whose work is a side effect).
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))
  (func $none (result i32)
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.store8 (i32.const 1028) (i32.const 0))
    (i32.const 1024))
  (func (export "murmur:hook/lifecycle@0.5.0#on-session-start")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32) (call $none))
  (func (export "murmur:hook/lifecycle@0.5.0#on-inference") (param i32) (result i32) (call $none))
  (func (export "murmur:hook/lifecycle@0.5.0#on-tool-call")
    (param i32 i32 i32 i64 i64 i64 i32 i32) (result i32) (call $none))
  (func (export "murmur:hook/lifecycle@0.5.0#on-compaction")
    (param i32 i32 i64 f64 i32 i32 i32 i32 i32 i32) (result i32) (call $none))
  (func (export "murmur:hook/lifecycle@0.5.0#on-session-end")
    (param i32 i64 i64 i32 i32 i64 i32 i32) (result i32) (call $none))
)
