;; stateful.wat's tool with a table and a function, never called, that
;; changes it: murmur-eval cannot restore a table, so it never reuses an
;; instance of this tool (see stateful.wat). One mode more than
;; stateful.wat's: T grows the table by 2^20 elements (past murmur's
;; 100,000 of capabilities.limits.table_elements: the call traps).
;;
;; A tool that remembers, to show that an instance murmur-eval reuses starts
;; each call in a fresh instance's state. Each call answers, as data, what
;; an earlier call on the same instance would have left behind: 'A' plus the
;; mutable global $calls, the 16 bytes of a slot the data segment fills
;; ("fresh-instance!!"), and 16 bytes of a page instantiation leaves zero.
;; On a fresh instance the answer is "Afresh-instance!!" and 16 NULs.
;; Then, when the input is not empty, it keeps the rest of its input in both
;; places (padded with '.'), and by its first byte:
;;   k returns   g grows memory by a page first   t traps
;; The input's bytes also stay where cabi_realloc put them (from 4096, a
;; bump allocator in the mutable global $heap).
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (global $calls (mut i32) (i32.const 0))
  (data (i32.const 512) "fresh-instance!!")
  (table 1 funcref)
  (func $never (table.set 0 (i32.const 0) (ref.null func)))

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  ;; keep copies min(n, 16) bytes from src into the 16-byte slot at dst.
  (func $keep (param $dst i32) (param $src i32) (param $n i32)
    (memory.fill (local.get $dst) (i32.const 0x2e) (i32.const 16))
    (memory.copy (local.get $dst) (local.get $src)
      (select (local.get $n) (i32.const 16) (i32.lt_u (local.get $n) (i32.const 16)))))

  (func (export "murmur:tool/run@0.1.0#run")
    (param $dd i32) (param $dp i32) (param $dl i32) (param i32 i32 i32) (result i32)
    (local $mode i32)
    ;; the answer at 600
    (i32.store8 (i32.const 600) (i32.add (i32.const 0x41) (global.get $calls)))
    (memory.copy (i32.const 601) (i32.const 512) (i32.const 16))
    (memory.copy (i32.const 617) (i32.const 20000) (i32.const 16))
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (if (i32.and (i32.ne (local.get $dd) (i32.const 0)) (i32.ne (local.get $dl) (i32.const 0)))
      (then
        (local.set $mode (i32.load8_u (local.get $dp)))
        (call $keep (i32.const 512) (i32.add (local.get $dp) (i32.const 1)) (i32.sub (local.get $dl) (i32.const 1)))
        (call $keep (i32.const 20000) (i32.add (local.get $dp) (i32.const 1)) (i32.sub (local.get $dl) (i32.const 1)))
        (if (i32.eq (local.get $mode) (i32.const 0x67)) ;; g
          (then (drop (memory.grow (i32.const 1)))))
        (if (i32.eq (local.get $mode) (i32.const 0x74)) ;; t
          (then (unreachable)))
        (if (i32.eq (local.get $mode) (i32.const 0x54)) ;; T
          (then (drop (table.grow 0 (ref.null func) (i32.const 1048576)))))))
    ;; result<tool-result> at 16: status ok, data some(600, 33), metadata (4, 0)
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 52))
    (i32.store8 (i32.const 32) (i32.const 1))
    (i32.store (i32.const 36) (i32.const 600))
    (i32.store (i32.const 40) (i32.const 33))
    (i32.store (i32.const 60) (i32.const 4))
    (i32.const 16))

  (func (export "cabi_post_murmur:tool/run@0.1.0#run") (param i32))
)
