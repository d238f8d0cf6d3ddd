;; A script capsule whose run traps at once (unreachable).
(module
  (memory (export "memory") 1)
  (func (export "murmur:capsule/run@0.1.0#run")
    unreachable))
