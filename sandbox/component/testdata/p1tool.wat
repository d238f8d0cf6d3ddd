;; A murmur tool built against WASI preview 1 and wrapped with the
;; wasi_snapshot_preview1 reactor adapter (the shape of `jco new
;; --wasi-reactor` and cargo component). run's first input byte picks:
;;   e write the rest to stdout with fd_write and return it as data
;;   v return the first environment entry (environ_sizes_get + environ_get)
;;   f return the first 64 bytes of the file the rest names, opened with
;;     path_open from the preopen (fd 3); failed with '0'+errno if it fails
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 8192))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    ;; grow memory to cover the heap (the adapter asks for 64 KiB at once)
    (loop $grow
      (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
        (then (drop (memory.grow (i32.const 1))) (br $grow))))
    (local.get $p))
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
    (local $mode i32) (local $arg i32) (local $n i32) (local $p i32) (local $e i32)
    (if (i32.or (i32.eqz (local.get $dd)) (i32.eqz (local.get $dl)))
      (then (return (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (local.set $mode (i32.load8_u (local.get $dp)))
    (local.set $arg (i32.add (local.get $dp) (i32.const 1)))
    (local.set $n (i32.sub (local.get $dl) (i32.const 1)))
    (if (i32.eq (local.get $mode) (i32.const 0x65)) (then ;; e
      (i32.store (i32.const 200) (local.get $arg))
      (i32.store (i32.const 204) (local.get $n))
      (drop (call $fd_write (i32.const 1) (i32.const 200) (i32.const 1) (i32.const 208)))
      (return (call $result (i32.const 0) (i32.const 1) (local.get $arg) (local.get $n)))))
    (if (i32.eq (local.get $mode) (i32.const 0x76)) (then ;; v
      (drop (call $environ_sizes_get (i32.const 200) (i32.const 204)))
      (if (i32.eqz (i32.load (i32.const 200)))
        (then (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
      ;; pointers at 1024, strings at 2048
      (drop (call $environ_get (i32.const 1024) (i32.const 2048)))
      (local.set $p (i32.load (i32.const 1024)))
      (local.set $e (local.get $p))
      (loop $len (if (i32.load8_u (local.get $e)) (then (local.set $e (i32.add (local.get $e) (i32.const 1))) (br $len))))
      (return (call $result (i32.const 0) (i32.const 1) (local.get $p) (i32.sub (local.get $e) (local.get $p))))))
    (if (i32.eq (local.get $mode) (i32.const 0x66)) (then ;; f
      ;; path_open(fd 3, follow symlinks, path, no oflags, rights fd_read, 0, no fdflags, &fd)
      (local.set $e (call $path_open (i32.const 3) (i32.const 1) (local.get $arg) (local.get $n)
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 220)))
      (if (local.get $e) (then
        (i32.store8 (i32.const 300) (i32.add (i32.const 0x30) (local.get $e)))
        (return (call $result (i32.const 1) (i32.const 1) (i32.const 300) (i32.const 1)))))
      (i32.store (i32.const 200) (i32.const 3072))
      (i32.store (i32.const 204) (i32.const 64))
      (drop (call $fd_read (i32.load (i32.const 220)) (i32.const 200) (i32.const 1) (i32.const 208)))
      (return (call $result (i32.const 0) (i32.const 1) (i32.const 3072) (i32.load (i32.const 208))))))
    (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))
  (func (export "cabi_post_murmur:tool/run@0.1.0#run") (param i32))
)
