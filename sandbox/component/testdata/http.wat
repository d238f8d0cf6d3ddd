;; A murmur tool that makes one wasi:http request, lowered by hand the way
;; wit-bindgen does. Its input is <mode><authority>|<path-with-query>:
;;   g GET over http   G GET with no scheme (https)   s GET over https
;;   f GET over scheme "ftp"   p POST over http, the path as the body
;;   P the same POST with the body written after handle
;; passed: data is the 3-digit status then the body (its first 30,000
;; bytes). failed: one letter, 'A' + the error-code case (handle, get,
;; body finish, or the body stream's http-error-code), "W" when the body
;; write failed, "!" for a stream error with no error-code.
(module
  (import "wasi:http/types@0.2.0" "[constructor]fields" (func $fields_new (result i32)))
  (import "wasi:http/types@0.2.0" "[constructor]outgoing-request" (func $req_new (param i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-request.set-method" (func $set_method (param i32 i32 i32 i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-request.set-scheme" (func $set_scheme (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-request.set-authority" (func $set_auth (param i32 i32 i32 i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-request.set-path-with-query" (func $set_path (param i32 i32 i32 i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-request.body" (func $req_body (param i32 i32)))
  (import "wasi:http/types@0.2.0" "[method]outgoing-body.write" (func $body_write (param i32 i32)))
  (import "wasi:http/types@0.2.0" "[static]outgoing-body.finish" (func $body_finish (param i32 i32 i32 i32)))
  (import "wasi:http/types@0.2.0" "[method]future-incoming-response.subscribe" (func $fut_sub (param i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]future-incoming-response.get" (func $fut_get (param i32 i32)))
  (import "wasi:http/types@0.2.0" "[method]incoming-response.status" (func $status (param i32) (result i32)))
  (import "wasi:http/types@0.2.0" "[method]incoming-response.consume" (func $consume (param i32 i32)))
  (import "wasi:http/types@0.2.0" "[method]incoming-body.stream" (func $in_stream (param i32 i32)))
  (import "wasi:http/types@0.2.0" "http-error-code" (func $http_err (param i32 i32)))
  (import "wasi:http/outgoing-handler@0.2.0" "handle" (func $handle (param i32 i32 i32 i32)))
  (import "wasi:io/poll@0.2.0" "[method]pollable.block" (func $block (param i32)))
  (import "wasi:io/streams@0.2.0" "[method]input-stream.blocking-read" (func $read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush" (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop_out (param i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))

  ;; a bump allocator that grows memory as it needs
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32) (local $end i32) (local $have i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (local.set $end (i32.add (local.get $p) (local.get 3)))
    (global.set $heap (local.get $end))
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.gt_u (local.get $end) (local.get $have))
      (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (local.get $end) (local.get $have)) (i32.const 16)) (i32.const 1))))))
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
  ;; failed with one character
  (func $fail (param $c i32) (result i32)
    (i32.store8 (i32.const 2000) (local.get $c))
    (call $result (i32.const 1) (i32.const 1) (i32.const 2000) (i32.const 1)))
  (func $fail_code (param $code i32) (result i32)
    (call $fail (i32.add (i32.const 0x41) (local.get $code))))

;; writes len bytes at ptr to outgoing body ob and finishes it: 0, or a
  ;; failed result
  (func $send_body (param $ob i32) (param $ptr i32) (param $len i32) (result i32)
    (local $os i32)
    (call $body_write (local.get $ob) (i32.const 100))
    (local.set $os (i32.load (i32.const 104)))
    (call $write (local.get $os) (local.get $ptr) (local.get $len) (i32.const 120))
    (if (i32.load8_u (i32.const 120)) (then (return (call $fail (i32.const 0x57)))))
    (call $drop_out (local.get $os))
    (call $body_finish (local.get $ob) (i32.const 0) (i32.const 0) (i32.const 128))
    (if (i32.load8_u (i32.const 128)) (then (return (call $fail_code (i32.load8_u (i32.const 136))))))
    (i32.const 0))

  (func (export "murmur:tool/run@0.1.0#run") (param $dt i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (local $mode i32) (local $sep i32) (local $plen i32) (local $req i32) (local $ob i32) (local $os i32)
    (local $fut i32) (local $resp i32) (local $is i32) (local $n i32) (local $len i32) (local $st i32)
    (local.set $mode (i32.load8_u (local.get $dp)))
    (local.set $sep (i32.add (local.get $dp) (i32.const 1)))
    (block $found (loop $l
      (br_if $found (i32.eq (i32.load8_u (local.get $sep)) (i32.const 124)))
      (local.set $sep (i32.add (local.get $sep) (i32.const 1)))
      (br $l)))
    (local.set $plen (i32.sub (i32.add (local.get $dp) (local.get $dl)) (i32.add (local.get $sep) (i32.const 1))))
    (local.set $req (call $req_new (call $fields_new)))
    (if (i32.eq (local.get $mode) (i32.const 0x67)) ;; g
      (then (drop (call $set_scheme (local.get $req) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x70)) ;; p
      (then (drop (call $set_scheme (local.get $req) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
            (drop (call $set_method (local.get $req) (i32.const 2) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x73)) ;; s
      (then (drop (call $set_scheme (local.get $req) (i32.const 1) (i32.const 1) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $mode) (i32.const 0x66)) ;; f
      (then (i32.store (i32.const 2100) (i32.const 0x707466)) ;; "ftp"
            (drop (call $set_scheme (local.get $req) (i32.const 1) (i32.const 2) (i32.const 2100) (i32.const 3)))))
    (drop (call $set_auth (local.get $req) (i32.const 1) (i32.add (local.get $dp) (i32.const 1))
      (i32.sub (local.get $sep) (i32.add (local.get $dp) (i32.const 1)))))
    (if (i32.eq (local.get $mode) (i32.const 0x70))
      (then (i32.store8 (i32.const 2104) (i32.const 0x2f)) ;; "/"
            (drop (call $set_path (local.get $req) (i32.const 1) (i32.const 2104) (i32.const 1))))
      (else (drop (call $set_path (local.get $req) (i32.const 1) (i32.add (local.get $sep) (i32.const 1)) (local.get $plen)))))
    ;; POST: the body is the path text, sent before handle (p) or after (P)
    (if (i32.eq (local.get $mode) (i32.const 0x50))
      (then (drop (call $set_scheme (local.get $req) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
            (drop (call $set_method (local.get $req) (i32.const 2) (i32.const 0) (i32.const 0)))
            (i32.store8 (i32.const 2104) (i32.const 0x2f))
            (drop (call $set_path (local.get $req) (i32.const 1) (i32.const 2104) (i32.const 1)))))
    (if (i32.or (i32.eq (local.get $mode) (i32.const 0x70)) (i32.eq (local.get $mode) (i32.const 0x50)))
      (then
        (call $req_body (local.get $req) (i32.const 100))
        (local.set $ob (i32.load (i32.const 104)))))
    (if (i32.eq (local.get $mode) (i32.const 0x70))
      (then (local.set $st (call $send_body (local.get $ob) (i32.add (local.get $sep) (i32.const 1)) (local.get $plen)))
            (if (local.get $st) (then (return (local.get $st))))))
    (call $handle (local.get $req) (i32.const 0) (i32.const 0) (i32.const 200))
    (if (i32.load8_u (i32.const 200)) (then (return (call $fail_code (i32.load8_u (i32.const 208))))))
    (local.set $fut (i32.load (i32.const 208)))
    (if (i32.eq (local.get $mode) (i32.const 0x50))
      (then (local.set $st (call $send_body (local.get $ob) (i32.add (local.get $sep) (i32.const 1)) (local.get $plen)))
            (if (local.get $st) (then (return (local.get $st))))))
    (call $block (call $fut_sub (local.get $fut)))
    (call $fut_get (local.get $fut) (i32.const 304))
    (if (i32.eqz (i32.load8_u (i32.const 304))) (then (return (call $fail (i32.const 0x3f))))) ;; "?": not ready
    (if (i32.load8_u (i32.const 320)) (then (return (call $fail_code (i32.load8_u (i32.const 328))))))
    (local.set $resp (i32.load (i32.const 328)))
    (local.set $st (call $status (local.get $resp)))
    (i32.store8 (i32.const 3000) (i32.add (i32.const 0x30) (i32.div_u (local.get $st) (i32.const 100))))
    (i32.store8 (i32.const 3001) (i32.add (i32.const 0x30) (i32.rem_u (i32.div_u (local.get $st) (i32.const 10)) (i32.const 10))))
    (i32.store8 (i32.const 3002) (i32.add (i32.const 0x30) (i32.rem_u (local.get $st) (i32.const 10))))
    (call $consume (local.get $resp) (i32.const 400))
    (call $in_stream (i32.load (i32.const 404)) (i32.const 400))
    (local.set $is (i32.load (i32.const 404)))
    (local.set $n (i32.const 0))
    (block $done (loop $more
      (call $read (local.get $is) (i64.const 4096) (i32.const 500))
      (if (i32.load8_u (i32.const 500))
        (then
          (br_if $done (i32.eq (i32.load8_u (i32.const 504)) (i32.const 1))) ;; closed
          (call $http_err (i32.load (i32.const 508)) (i32.const 600))
          (if (i32.load8_u (i32.const 600)) (then (return (call $fail_code (i32.load8_u (i32.const 608))))))
          (return (call $fail (i32.const 0x21)))))
      (local.set $len (i32.load (i32.const 508)))
      (if (i32.le_u (i32.add (local.get $n) (local.get $len)) (i32.const 30000))
        (then (memory.copy (i32.add (i32.const 3003) (local.get $n)) (i32.load (i32.const 504)) (local.get $len))
              (local.set $n (i32.add (local.get $n) (local.get $len)))))
      (br $more)))
    (call $result (i32.const 0) (i32.const 1) (i32.const 3000) (i32.add (local.get $n) (i32.const 3))))
)
