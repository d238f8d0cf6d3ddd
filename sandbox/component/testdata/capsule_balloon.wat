;; A script capsule whose run grows its linear memory by 128 pages (8 MiB)
;; at a time without end, writing into each new chunk so it is kept, and
;; traps (unreachable) when a growth is refused: only a memory limit stops
;; it short of the host's memory (the shape of murmur's
;; capsule-memory-balloon fixture, written here).
(module
  (memory (export "memory") 1)
  (func (export "murmur:capsule/run@0.1.0#run")
    (local $old i32)
    (loop $grow
      (local.set $old (memory.grow (i32.const 128)))
      (if (i32.eq (local.get $old) (i32.const -1)) (then (unreachable)))
      (i32.store (i32.mul (local.get $old) (i32.const 65536)) (i32.const 1))
      (br $grow))))
