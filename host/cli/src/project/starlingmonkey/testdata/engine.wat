;; A stand-in for StarlingMonkey's engine module in the janitor's tests: it imports what the
;; janitor wraps (not the drops the janitor adds), exports `memory` and `cabi_realloc` (a bump
;; allocator), has a `Headers` class whose finalizer counts its calls, and exports one function
;; per import call the tests make, called the way the engine calls them.
(module
  (import "wasi:io/poll@0.2.10" "[resource-drop]pollable" (func $drop_pollable (param i32)))
  (import "wasi:io/streams@0.2.10" "[resource-drop]input-stream" (func $drop_stream (param i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.read" (func $read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.blocking-read" (func $blocking_read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.subscribe" (func $subscribe (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-response.headers" (func $headers (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-response.consume" (func $consume (param i32 i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-body.stream" (func $stream (param i32 i32)))
  (import "wasi:http/types@0.2.10" "[method]future-incoming-response.subscribe" (func $future_subscribe (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[method]future-incoming-response.get" (func $future_get (param i32 i32)))

  (type $finalizer (func (param i32 i32)))
  (memory (export "memory") 4)
  (table 2 funcref)
  (elem (i32.const 1) $finalize)

  ;; Return areas of the calls with results in memory.
  (global $RET i32 (i32.const 1024))
  (global $heap (mut i32) (i32.const 65536))
  (global $finalized (export "finalized") (mut i32) (i32.const 0))

  ;; "Headers" at 101; the JSClass at 200 { name, flags, cOps = 300 }; its ops' finalizer
  ;; (seventh entry) is table index 1.
  (data (i32.const 100) "\00Headers\00")
  (data (i32.const 200) "\65\00\00\00\00\00\00\00\2c\01\00\00")
  (data (i32.const 324) "\01\00\00\00")

  (func (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $size i32) (result i32)
    (local $new i32)
    (local.set $new (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
    (global.set $heap (i32.add (local.get $new) (local.get $size)))
    (memory.copy (local.get $new) (local.get $old) (local.get $old_size))
    (local.get $new))

  (func $finalize (type $finalizer)
    (global.set $finalized (i32.add (global.get $finalized) (i32.const 1))))

  (func (export "future_subscribe") (param $f i32) (result i32)
    (call $future_subscribe (local.get $f)))
  ;; The response, or 0 when the future answered something else.
  (func (export "future_get") (param $f i32) (result i32)
    (call $future_get (local.get $f) (global.get $RET))
    (select (i32.load offset=24 (global.get $RET)) (i32.const 0)
            (i32.and (i32.eq (i32.load8_u (global.get $RET)) (i32.const 1))
                     (i32.eqz (i32.or (i32.load8_u offset=8 (global.get $RET))
                                      (i32.load8_u offset=16 (global.get $RET)))))))
  (func (export "headers") (param $r i32) (result i32) (call $headers (local.get $r)))
  (func (export "consume") (param $r i32) (result i32)
    (call $consume (local.get $r) (global.get $RET))
    (i32.load offset=4 (global.get $RET)))
  (func (export "stream") (param $b i32) (result i32)
    (call $stream (local.get $b) (global.get $RET))
    (i32.load offset=4 (global.get $RET)))
  (func (export "subscribe") (param $s i32) (result i32) (call $subscribe (local.get $s)))
  ;; The read's tag: 0 data, 1 failed or ended.
  (func (export "read") (param $s i32) (result i32)
    (call $read (local.get $s) (i64.const 8192) (global.get $RET))
    (i32.load8_u (global.get $RET)))
  (func (export "blocking_read") (param $s i32) (result i32)
    (call $blocking_read (local.get $s) (i64.const 8192) (global.get $RET))
    (i32.load8_u (global.get $RET)))
  (func (export "drop_pollable") (param $p i32) (call $drop_pollable (local.get $p)))
  (func (export "drop_stream") (param $s i32) (call $drop_stream (local.get $s)))

  ;; A `Headers` object holding fields handle `h` (at 2048: shape at 2112 with six fixed
  ;; slots, slot 0 at 2064 -> host headers at 2176 { vtable, state = 2240 }, state { vtable,
  ;; h }), finalized through the table as the collector does; returns what is left in the
  ;; state's handle.
  (func (export "collect_headers") (param $h i32) (result i32)
    (i32.store (i32.const 2048) (i32.const 2112))
    (i32.store (i32.const 2116) (i32.shl (i32.const 6) (i32.const 6)))
    (i32.store (i32.const 2064) (i32.const 2176))
    (i32.store (i32.const 2180) (i32.const 2240))
    (i32.store (i32.const 2244) (local.get $h))
    (call_indirect (type $finalizer) (i32.const 0) (i32.const 2048) (i32.const 1))
    (i32.load (i32.const 2244))))
