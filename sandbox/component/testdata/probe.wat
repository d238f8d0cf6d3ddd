;; A murmur tool that probes WASI 0.2 host functions, lowered by hand the
;; way wit-bindgen does. run's first input byte picks the probe, the rest
;; is its argument:
;;   v first environment entry "k=v"   a first argument   w wall clock sane
;;   z sleep 50 ms on a pollable   Z sleep an hour   k poll a ready pollable
;;   r 16 random bytes   s stat-at: type letter + size digit (failed: error letter)
;;   h metadata-hash-at twice is stable   d directory listing "a,b,"
;;   t get-type of the preopen   E write to stderr   i request-input
;;   x exit with an error
(module
  (import "wasi:cli/environment@0.2.0" "get-environment" (func $env (param i32)))
  (import "wasi:cli/environment@0.2.0" "get-arguments" (func $args (param i32)))
  (import "wasi:cli/exit@0.2.0" "exit" (func $exit (param i32)))
  (import "wasi:cli/stderr@0.2.0" "get-stderr" (func $get_stderr (result i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush"
    (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop_out (param i32)))
  (import "wasi:clocks/wall-clock@0.2.0" "now" (func $wall (param i32)))
  (import "wasi:clocks/monotonic-clock@0.2.0" "subscribe-duration" (func $sub (param i64) (result i32)))
  (import "wasi:io/poll@0.2.0" "[method]pollable.block" (func $block (param i32)))
  (import "wasi:io/poll@0.2.0" "poll" (func $poll (param i32 i32 i32)))
  (import "wasi:io/poll@0.2.0" "[resource-drop]pollable" (func $drop_poll (param i32)))
  (import "wasi:random/random@0.2.0" "get-random-bytes" (func $random (param i64 i32)))
  (import "wasi:filesystem/preopens@0.2.0" "get-directories" (func $dirs (param i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.stat-at" (func $stat_at (param i32 i32 i32 i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.metadata-hash-at" (func $hash_at (param i32 i32 i32 i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.get-type" (func $get_type (param i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.open-at" (func $open_at (param i32 i32 i32 i32 i32 i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]descriptor.read-directory" (func $read_dir (param i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[method]directory-entry-stream.read-directory-entry" (func $read_entry (param i32 i32)))
  (import "wasi:filesystem/types@0.2.0" "[resource-drop]descriptor" (func $drop_desc (param i32)))
  (import "wasi:filesystem/types@0.2.0" "[resource-drop]directory-entry-stream" (func $drop_dir (param i32)))
  (import "murmur:task/task@0.1.0" "request-input" (func $request_input (param i32 i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 8192))

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  ;; result at 16; data, if any, is (ptr, len)
  (func $result (param $status i32) (param $some i32) (param $ptr i32) (param $len i32) (result i32)
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 52))
    (i32.store8 (i32.const 16) (local.get $status))
    (i32.store8 (i32.const 32) (local.get $some))
    (i32.store (i32.const 36) (local.get $ptr))
    (i32.store (i32.const 40) (local.get $len))
    (i32.store (i32.const 60) (i32.const 4))
    (i32.const 16))
  (func $pass (result i32) (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
  (func $fail (result i32) (call $result (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
  (func $bool (param i32) (result i32) (if (result i32) (local.get 0) (then (call $pass)) (else (call $fail))))
  ;; one letter at 2000: 'A' + v
  (func $letter (param $v i32) (result i32)
    (i32.store8 (i32.const 2000) (i32.add (i32.const 0x41) (local.get $v)))
    (call $result (i32.const 0) (i32.const 1) (i32.const 2000) (i32.const 1)))
  ;; status failed with one letter: 'A' + an error-code
  (func $failed (param $v i32) (result i32)
    (i32.store8 (i32.const 2000) (i32.add (i32.const 0x41) (local.get $v)))
    (call $result (i32.const 1) (i32.const 1) (i32.const 2000) (i32.const 1)))
  (func $preopen (result i32)
    (call $dirs (i32.const 128))
    (if (i32.eqz (i32.load (i32.const 132))) (then (unreachable)))
    (i32.load (i32.load (i32.const 128))))

  (func (export "murmur:tool/run@0.1.0#run")
    (param $dd i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (local $mode i32) (local $arg i32) (local $n i32) (local $h i32) (local $p i32) (local $out i32)
    (if (i32.or (i32.eqz (local.get $dd)) (i32.eqz (local.get $dl)))
      (then (return (call $result (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (local.set $mode (i32.load8_u (local.get $dp)))
    (local.set $arg (i32.add (local.get $dp) (i32.const 1)))
    (local.set $n (i32.sub (local.get $dl) (i32.const 1)))
    (block $done
      (if (i32.eq (local.get $mode) (i32.const 0x76)) (then ;; v
        (call $env (i32.const 128))
        (br_if $done (i32.eqz (i32.load (i32.const 132))))
        (local.set $p (i32.load (i32.const 128)))
        (memory.copy (i32.const 2048) (i32.load (local.get $p)) (i32.load offset=4 (local.get $p)))
        (local.set $out (i32.add (i32.const 2048) (i32.load offset=4 (local.get $p))))
        (i32.store8 (local.get $out) (i32.const 0x3d))
        (memory.copy (i32.add (local.get $out) (i32.const 1)) (i32.load offset=8 (local.get $p)) (i32.load offset=12 (local.get $p)))
        (return (call $result (i32.const 0) (i32.const 1) (i32.const 2048)
          (i32.add (i32.sub (local.get $out) (i32.const 2047)) (i32.load offset=12 (local.get $p)))))))
      (if (i32.eq (local.get $mode) (i32.const 0x61)) (then ;; a
        (call $args (i32.const 128))
        (br_if $done (i32.eqz (i32.load (i32.const 132))))
        (local.set $p (i32.load (i32.const 128)))
        (return (call $result (i32.const 0) (i32.const 1) (i32.load (local.get $p)) (i32.load offset=4 (local.get $p))))))
      (if (i32.eq (local.get $mode) (i32.const 0x77)) (then ;; w
        (call $wall (i32.const 128))
        (return (call $bool (i64.gt_u (i64.load (i32.const 128)) (i64.const 1000000000))))))
      (if (i32.eq (local.get $mode) (i32.const 0x7a)) (then ;; z
        (local.set $h (call $sub (i64.const 50000000)))
        (call $block (local.get $h))
        (call $drop_poll (local.get $h))
        (return (call $pass))))
      (if (i32.eq (local.get $mode) (i32.const 0x5a)) (then ;; Z
        (call $block (call $sub (i64.const 3600000000000)))
        (return (call $pass))))
      (if (i32.eq (local.get $mode) (i32.const 0x6b)) (then ;; k
        (i32.store (i32.const 200) (call $sub (i64.const 0)))
        (call $poll (i32.const 200) (i32.const 1) (i32.const 128))
        (return (call $bool (i32.and (i32.eq (i32.load (i32.const 132)) (i32.const 1))
                                     (i32.eqz (i32.load (i32.load (i32.const 128)))))))))
      (if (i32.eq (local.get $mode) (i32.const 0x72)) (then ;; r
        (call $random (i64.const 16) (i32.const 128))
        (return (call $bool (i32.eq (i32.load (i32.const 132)) (i32.const 16))))))
      (if (i32.eq (local.get $mode) (i32.const 0x73)) (then ;; s
        (call $stat_at (call $preopen) (i32.const 1) (local.get $arg) (local.get $n) (i32.const 256))
        (if (i32.load8_u (i32.const 256))
          (then (return (call $failed (i32.load8_u (i32.const 264))))))
        (i32.store8 (i32.const 2000) (i32.add (i32.const 0x41) (i32.load8_u (i32.const 264))))
        (i32.store8 (i32.const 2001) (i32.add (i32.const 0x30) (i32.wrap_i64 (i64.load (i32.const 280)))))
        (return (call $result (i32.const 0) (i32.const 1) (i32.const 2000) (i32.const 2)))))
      (if (i32.eq (local.get $mode) (i32.const 0x68)) (then ;; h
        (local.set $h (call $preopen))
        (call $hash_at (local.get $h) (i32.const 1) (local.get $arg) (local.get $n) (i32.const 256))
        (call $hash_at (local.get $h) (i32.const 1) (local.get $arg) (local.get $n) (i32.const 288))
        (return (call $bool (i32.and (i32.eqz (i32.or (i32.load8_u (i32.const 256)) (i32.load8_u (i32.const 288))))
          (i32.and (i64.eq (i64.load (i32.const 264)) (i64.load (i32.const 296)))
                   (i64.eq (i64.load (i32.const 272)) (i64.load (i32.const 304)))))))))
      (if (i32.eq (local.get $mode) (i32.const 0x74)) (then ;; t
        (call $get_type (call $preopen) (i32.const 256))
        (return (call $letter (i32.load8_u (i32.const 257))))))
      (if (i32.eq (local.get $mode) (i32.const 0x64)) (then ;; d
        ;; open-at(preopen, follow, arg, directory, read)
        (call $open_at (call $preopen) (i32.const 1) (local.get $arg) (local.get $n) (i32.const 2) (i32.const 1) (i32.const 256))
        (if (i32.load8_u (i32.const 256)) (then (return (call $failed (i32.load8_u (i32.const 260))))))
        (local.set $h (i32.load (i32.const 260)))
        (call $read_dir (local.get $h) (i32.const 256))
        (call $drop_desc (local.get $h))
        (if (i32.load8_u (i32.const 256)) (then (unreachable)))
        (local.set $h (i32.load (i32.const 260)))
        (local.set $out (i32.const 2048))
        (loop $next
          (call $read_entry (local.get $h) (i32.const 256))
          (if (i32.load8_u (i32.const 256)) (then (unreachable)))
          (if (i32.load8_u (i32.const 260)) (then
            (memory.copy (local.get $out) (i32.load (i32.const 268)) (i32.load (i32.const 272)))
            (local.set $out (i32.add (local.get $out) (i32.load (i32.const 272))))
            (i32.store8 (local.get $out) (i32.const 0x2c))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))
            (br $next))))
        (call $drop_dir (local.get $h))
        (return (call $result (i32.const 0) (i32.const 1) (i32.const 2048) (i32.sub (local.get $out) (i32.const 2048))))))
      (if (i32.eq (local.get $mode) (i32.const 0x45)) (then ;; E
        (local.set $h (call $get_stderr))
        (call $write (local.get $h) (local.get $arg) (local.get $n) (i32.const 128))
        (call $drop_out (local.get $h))
        (return (call $pass))))
      (if (i32.eq (local.get $mode) (i32.const 0x69)) (then ;; i
        (call $request_input (local.get $arg) (local.get $n) (i32.const 128))
        (return (call $pass))))
      (if (i32.eq (local.get $mode) (i32.const 0x78)) (then ;; x
        (call $exit (i32.const 1))
        (return (call $pass)))))
    (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))

  (func (export "cabi_post_murmur:tool/run@0.1.0#run") (param i32))
)
