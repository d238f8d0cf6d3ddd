;; A murmur hook (world murmur:runtime/hook) as wit-bindgen would lower it,
;; by hand. Every call counts in the instance's own memory ($count), so a
;; reused instance shows it:
;;   on-stage          write-manifests([{binary-name: "fixture-tool",
;;                     content: the first shell-allow entry, or ""}])
;;   on-session-start  none (a capsule named "spin": spins forever)
;;   on-task-start     err("task-start refused")
;;   on-inference      artifact(the event's decision) (its record is passed
;;                     by pointer: 17 flat parameters)
;;   on-tool-call      none
;;   on-shell          traps (unreachable)
;;   on-compaction     run-inference(the event's messages); ok: replace-context
;;                     with one "user" message holding the reply's text and
;;                     model-used joined by "|"; err: err(its text)
;;   on-task-end       first call: reopen-task("events=<count>"); then none
;;   on-session-end    artifact("{\"events\":<count>}") (not honoured there)
;; and cabi_realloc traps when asked for 0xdead bytes.
(module
  (import "murmur:runtime/inference@0.2.0" "run-inference"
    (func $infer (param i32 i32 i32 i32 i32 i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 8192))
  (global $count (mut i32) (i32.const 0))
  (global $ended (mut i32) (i32.const 0))
  (data (i32.const 400) "fixture-tool")
  (data (i32.const 420) "task-start refused")
  (data (i32.const 440) "events=")
  (data (i32.const 460) "{\22events\22:")
  (data (i32.const 480) "user")
  ;; the result area is at 1024; run-inference's at 2048 (align 8)

  ;; a bump allocator that starts over when the page is used up (the
  ;; fixture keeps nothing allocated from one call to the next)
  (func $realloc (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    ;; asked for 0xdead bytes, it traps
    (if (i32.eq (local.get 3) (i32.const 0xdead)) (then unreachable))
    (if (i32.gt_u (i32.add (global.get $heap) (i32.add (local.get 3) (local.get 2))) (i32.const 65536))
      (then (global.set $heap (i32.const 8192))))
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  (func $tick (global.set $count (i32.add (global.get $count) (i32.const 1))))

  ;; ok(arm) with a payload pointer and length
  (func $ok (param $arm i32) (param $p i32) (param $n i32) (result i32)
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.store8 (i32.const 1028) (local.get $arm))
    (i32.store (i32.const 1032) (local.get $p))
    (i32.store (i32.const 1036) (local.get $n))
    (i32.const 1024))

  (func $err (param $p i32) (param $n i32) (result i32)
    (i32.store8 (i32.const 1024) (i32.const 1))
    (i32.store (i32.const 1028) (local.get $p))
    (i32.store (i32.const 1032) (local.get $n))
    (i32.const 1024))

  ;; writes the decimal digits of v at p; returns how many
  (func $itoa (param $v i32) (param $p i32) (result i32)
    (local $n i32) (local $t i32) (local $i i32)
    (local.set $t (local.get $v))
    (local.set $n (i32.const 1))
    (block $done (loop $count_digits
      (br_if $done (i32.lt_u (local.get $t) (i32.const 10)))
      (local.set $t (i32.div_u (local.get $t) (i32.const 10)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $count_digits)))
    (local.set $i (local.get $n))
    (loop $digits
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (i32.store8 (i32.add (local.get $p) (local.get $i))
        (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digits (local.get $i)))
    (local.get $n))

  (func (export "murmur:hook/lifecycle@0.5.0#on-stage") (param $p i32) (param $n i32) (result i32)
    (call $tick)
    ;; one tool-manifest at 1200: binary-name, content
    (i32.store (i32.const 1200) (i32.const 400))
    (i32.store (i32.const 1204) (i32.const 12))
    (i32.store (i32.const 1208) (i32.const 0))
    (i32.store (i32.const 1212) (i32.const 0))
    (if (local.get $n) (then
      (i32.store (i32.const 1208) (i32.load (local.get $p)))
      (i32.store (i32.const 1212) (i32.load offset=4 (local.get $p)))))
    (call $ok (i32.const 2) (i32.const 1200) (i32.const 1)))

  (func (export "murmur:hook/lifecycle@0.5.0#on-session-start")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)
    (call $tick)
    ;; a capsule named "spin" makes it spin forever
    (if (i32.and (i32.eq (local.get 1) (i32.const 4)) (i32.eq (i32.load (local.get 0)) (i32.const 0x6e697073)))
      (then (loop $forever (br $forever))))
    (call $ok (i32.const 0) (i32.const 0) (i32.const 0)))

  (func (export "murmur:hook/lifecycle@0.5.0#on-task-start")
    (param i32 i32 i32 i32 i32 i32 i64) (result i32)
    (call $tick)
    (call $err (i32.const 420) (i32.const 18)))

  (func (export "murmur:hook/lifecycle@0.5.0#on-inference") (param $e i32) (result i32)
    (call $tick)
    (call $ok (i32.const 3) (i32.load offset=24 (local.get $e)) (i32.load offset=28 (local.get $e))))

  (func (export "murmur:hook/lifecycle@0.5.0#on-tool-call")
    (param i32 i32 i32 i64 i64 i64 i32 i32) (result i32)
    (call $tick)
    (call $ok (i32.const 0) (i32.const 0) (i32.const 0)))

  (func (export "murmur:hook/lifecycle@0.5.0#on-shell")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i64 i64) (result i32)
    (call $tick)
    unreachable)

  (func (export "murmur:hook/lifecycle@0.5.0#on-compaction")
    (param $mp i32) (param $mn i32) (param i64 f64 i32 i32 i32 i32 i32 i32) (result i32)
    (local $tn i32) (local $mdl i32) (local $buf i32)
    (call $tick)
    (call $infer (local.get $mp) (local.get $mn) (i32.const 0) (i32.const 0) (i32.const 0)
      (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 2048))
    (if (i32.load8_u (i32.const 2048))
      (then (return (call $err (i32.load (i32.const 2056)) (i32.load (i32.const 2060))))))
    ;; content = text "|" model-used, at a fresh buffer
    (local.set $tn (i32.load (i32.const 2060)))
    (local.set $mdl (i32.load (i32.const 2068)))
    (local.set $buf (call $realloc (i32.const 0) (i32.const 0) (i32.const 1)
      (i32.add (i32.add (local.get $tn) (local.get $mdl)) (i32.const 1))))
    (memory.copy (local.get $buf) (i32.load (i32.const 2056)) (local.get $tn))
    (i32.store8 (i32.add (local.get $buf) (local.get $tn)) (i32.const 124))
    (memory.copy (i32.add (i32.add (local.get $buf) (local.get $tn)) (i32.const 1))
      (i32.load (i32.const 2064)) (local.get $mdl))
    ;; one message at 1300
    (i32.store (i32.const 1300) (i32.const 480))
    (i32.store (i32.const 1304) (i32.const 4))
    (i32.store (i32.const 1308) (local.get $buf))
    (i32.store (i32.const 1312) (i32.add (i32.add (local.get $tn) (local.get $mdl)) (i32.const 1)))
    (call $ok (i32.const 1) (i32.const 1300) (i32.const 1)))

  (func (export "murmur:hook/lifecycle@0.5.0#on-task-end") (param i32 i32 i32 i32) (result i32)
    (local $n i32)
    (call $tick)
    (if (global.get $ended) (then (return (call $ok (i32.const 0) (i32.const 0) (i32.const 0)))))
    (global.set $ended (i32.const 1))
    (memory.copy (i32.const 1400) (i32.const 440) (i32.const 7))
    (local.set $n (call $itoa (global.get $count) (i32.const 1407)))
    (call $ok (i32.const 4) (i32.const 1400) (i32.add (local.get $n) (i32.const 7))))

  (func (export "murmur:hook/lifecycle@0.5.0#on-session-end")
    (param i32 i64 i64 i32 i32 i64 i32 i32) (result i32)
    (local $n i32)
    (call $tick)
    (memory.copy (i32.const 1500) (i32.const 460) (i32.const 10))
    (local.set $n (call $itoa (global.get $count) (i32.const 1510)))
    (i32.store8 (i32.add (i32.const 1510) (local.get $n)) (i32.const 125))
    (call $ok (i32.const 3) (i32.const 1500) (i32.add (local.get $n) (i32.const 11))))

  (func (export "cabi_post_murmur:hook/lifecycle@0.5.0#on-session-end") (param i32))
)
