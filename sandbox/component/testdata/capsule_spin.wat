;; A script capsule whose run never returns: it spins in a loop that calls
;; no host function, so only a deadline that interrupts guest code stops it
;; (the shape of murmur's capsule-spin-loop fixture, written here).
(module
  (memory (export "memory") 1)
  (func (export "murmur:capsule/run@0.1.0#run")
    (loop $spin (br $spin))))
