;; Handle janitor for StarlingMonkey's fetch over wasi:http 0.2.10 (componentize-js 0.23.0).
;;
;; It also reads response bodies in chunks of up to 1 MiB: the engine asks for 8 KiB a read,
;; and every chunk then costs a host call, a typed array, a promise turn and, in SDKs built
;; for Node, a pass through their stream plumbing (a 16 MiB download was 2 048 chunks).
;;
;; StarlingMonkey never drops the wasi:http resources a fetch creates (future-incoming-response,
;; incoming-response, incoming-body, its input-stream, the response's header fields) and takes
;; a new pollable from the body stream for every chunk it reads, so a reused instance gains
;; five handles per fetch plus one per 8 KiB of body and traps at the store's handle limit.
;; These functions sit between the engine and its imports (each export named
;; `module#name` replaces the engine's import of that name) and release every handle once the
;; engine can no longer use it:
;;
;; - a body stream hands out one pollable, kept until the stream ends;
;; - a response future and its pollable are dropped once the response is taken out;
;; - a body's stream and the body are dropped when a read reports its end (or failure), and the
;;   response with them once its headers were taken;
;; - the header fields of a `Headers` object are dropped when the garbage collector finalizes
;;   it (queued, as the collector may not call the host, and dropped at the next wasi:http
;;   call); a response whose headers are finalized is unreachable, so it and its unread body
;;   are dropped then too.
;;
;; State: one 16-byte entry per guest handle index (the index space is shared by all resource
;; types), grown with the engine's allocator; entry = kind, a, b, c:
;;   STREAM a = its pollable, b = its body     BODY a = its response, b = its stream
;;   RESPONSE a = its body, b = flags, c = its headers
;;   FUTURE a = its pollable    MEMO_POLLABLE a = its stream    FUTURE_POLLABLE a = its future
;;   HEADERS a = its response
(module
  (import "engine" "memory" (memory 0))
  (import "engine" "cabi_realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
  (import "engine" "headers_finalize" (func $headers_finalize (param i32 i32)))
  (import "wasi:io/poll@0.2.10" "[resource-drop]pollable" (func $drop_pollable (param i32)))
  (import "wasi:io/error@0.2.10" "[resource-drop]error" (func $drop_error (param i32)))
  (import "wasi:io/streams@0.2.10" "[resource-drop]input-stream" (func $drop_input_stream (param i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.read" (func $read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.blocking-read" (func $blocking_read (param i32 i64 i32)))
  (import "wasi:io/streams@0.2.10" "[method]input-stream.subscribe" (func $subscribe (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[resource-drop]fields" (func $drop_fields (param i32)))
  (import "wasi:http/types@0.2.10" "[resource-drop]incoming-response" (func $drop_response (param i32)))
  (import "wasi:http/types@0.2.10" "[resource-drop]incoming-body" (func $drop_body (param i32)))
  (import "wasi:http/types@0.2.10" "[resource-drop]future-incoming-response" (func $drop_future (param i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-response.headers" (func $headers (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-response.consume" (func $consume (param i32 i32)))
  (import "wasi:http/types@0.2.10" "[method]incoming-body.stream" (func $stream (param i32 i32)))
  (import "wasi:http/types@0.2.10" "[method]future-incoming-response.subscribe" (func $future_subscribe (param i32) (result i32)))
  (import "wasi:http/types@0.2.10" "[method]future-incoming-response.get" (func $future_get (param i32 i32)))

  (global $entries (mut i32) (i32.const 0))
  (global $capacity (mut i32) (i32.const 0))
  (global $queue (mut i32) (i32.const 0))
  (global $queued (mut i32) (i32.const 0))

  ;; Entry kinds and response flags.
  (global $STREAM i32 (i32.const 1))
  (global $BODY i32 (i32.const 2))
  (global $RESPONSE i32 (i32.const 3))
  (global $FUTURE i32 (i32.const 4))
  (global $MEMO_POLLABLE i32 (i32.const 5))
  (global $FUTURE_POLLABLE i32 (i32.const 6))
  (global $HEADERS i32 (i32.const 7))
  (global $HEADERS_TAKEN i32 (i32.const 1))
  (global $BODY_DONE i32 (i32.const 2))
  ;; Handles queued by the collector between two wasi:http calls; past this many the rest
  ;; stay (as without the janitor) rather than allocate during a collection.
  (global $QUEUE_CAPACITY i32 (i32.const 4096))
  ;; Handle indices past this are not tracked (the store allows 100 000 live handles).
  (global $MAX_TRACKED i32 (i32.const 262144))
  ;; The most a read of a response body asks for (the host answers with at most one of its
  ;; frames, so a chunk is often smaller).
  (global $BODY_READ i64 (i64.const 1048576))

  ;; The entry of handle `h`, growing the table to hold it; 0 when `h` is not tracked.
  (func $entry (param $h i32) (result i32)
    (local $old i32) (local $new i32) (local $ptr i32)
    (if (i32.or (i32.le_s (local.get $h) (i32.const 0))
                (i32.ge_u (local.get $h) (global.get $MAX_TRACKED)))
      (then (return (i32.const 0))))
    (if (i32.ge_u (local.get $h) (global.get $capacity))
      (then
        (local.set $old (global.get $capacity))
        (local.set $new (select (i32.const 256) (local.get $old) (i32.eqz (local.get $old))))
        (block $done (loop $double
          (br_if $done (i32.gt_u (local.get $new) (local.get $h)))
          (local.set $new (i32.shl (local.get $new) (i32.const 1)))
          (br $double)))
        (local.set $ptr (call $realloc (global.get $entries) (i32.shl (local.get $old) (i32.const 4))
                                       (i32.const 8) (i32.shl (local.get $new) (i32.const 4))))
        (if (i32.eqz (local.get $ptr)) (then (return (i32.const 0))))
        (memory.fill (i32.add (local.get $ptr) (i32.shl (local.get $old) (i32.const 4)))
                     (i32.const 0)
                     (i32.shl (i32.sub (local.get $new) (local.get $old)) (i32.const 4)))
        (global.set $entries (local.get $ptr))
        (global.set $capacity (local.get $new))
        (if (i32.eqz (global.get $queue))
          (then (global.set $queue (call $realloc (i32.const 0) (i32.const 0) (i32.const 4)
                                     (i32.shl (global.get $QUEUE_CAPACITY) (i32.const 2))))))))
    (i32.add (global.get $entries) (i32.shl (local.get $h) (i32.const 4))))

  ;; The entry of handle `h` if it has one of `kind`, else 0; never grows the table.
  (func $entry_of (param $h i32) (param $kind i32) (result i32)
    (local $e i32)
    (if (i32.or (i32.le_s (local.get $h) (i32.const 0))
                (i32.ge_u (local.get $h) (global.get $capacity)))
      (then (return (i32.const 0))))
    (local.set $e (i32.add (global.get $entries) (i32.shl (local.get $h) (i32.const 4))))
    (select (local.get $e) (i32.const 0) (i32.eq (i32.load (local.get $e)) (local.get $kind))))

  (func $set (param $h i32) (param $kind i32) (param $a i32) (param $b i32)
    (local $e i32)
    (local.set $e (call $entry (local.get $h)))
    (if (local.get $e)
      (then
        (i32.store (local.get $e) (local.get $kind))
        (i32.store offset=4 (local.get $e) (local.get $a))
        (i32.store offset=8 (local.get $e) (local.get $b))
        (i32.store offset=12 (local.get $e) (i32.const 0)))))

  (func $clear (param $e i32)
    (if (local.get $e)
      (then (i64.store (local.get $e) (i64.const 0))
            (i64.store offset=8 (local.get $e) (i64.const 0)))))

  ;; Drops a body stream: its pollable first (a child of the stream in the host's table).
  (func $release_stream (param $s i32)
    (local $e i32) (local $p i32)
    (local.set $e (call $entry_of (local.get $s) (global.get $STREAM)))
    (if (i32.eqz (local.get $e)) (then (return)))
    (local.set $p (i32.load offset=4 (local.get $e)))
    (if (local.get $p)
      (then (call $clear (call $entry_of (local.get $p) (global.get $MEMO_POLLABLE)))
            (call $drop_pollable (local.get $p))))
    (call $clear (local.get $e))
    (call $drop_input_stream (local.get $s)))

  ;; Drops a body (and its stream first); its response learns that its body is done.
  (func $release_body (param $b i32)
    (local $e i32) (local $r i32)
    (local.set $e (call $entry_of (local.get $b) (global.get $BODY)))
    (if (i32.eqz (local.get $e)) (then (return)))
    (if (i32.load offset=8 (local.get $e))
      (then (call $release_stream (i32.load offset=8 (local.get $e)))))
    (local.set $r (call $entry_of (i32.load offset=4 (local.get $e)) (global.get $RESPONSE)))
    (if (local.get $r)
      (then (i32.store offset=4 (local.get $r) (i32.const 0))
            (i32.store offset=8 (local.get $r)
              (i32.or (i32.load offset=8 (local.get $r)) (global.get $BODY_DONE)))))
    (call $clear (local.get $e))
    (call $drop_body (local.get $b)))

  ;; Drops a response (and its body, if not done).
  (func $release_response (param $r i32)
    (local $e i32) (local $h i32)
    (local.set $e (call $entry_of (local.get $r) (global.get $RESPONSE)))
    (if (i32.eqz (local.get $e)) (then (return)))
    (if (i32.load offset=4 (local.get $e))
      (then (call $release_body (i32.load offset=4 (local.get $e)))))
    (local.set $h (call $entry_of (i32.load offset=12 (local.get $e)) (global.get $HEADERS)))
    (if (local.get $h) (then (i32.store offset=4 (local.get $h) (i32.const 0))))
    (call $clear (local.get $e))
    (call $drop_response (local.get $r)))

  ;; Drops the header fields the collector queued (and their unreachable responses).
  (func $flush
    (local $i i32) (local $h i32) (local $e i32) (local $r i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (global.get $queued)))
      (local.set $h (i32.load (i32.add (global.get $queue) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $e (call $entry_of (local.get $h) (global.get $HEADERS)))
      (local.set $r (select (i32.load offset=4 (local.get $e)) (i32.const 0) (local.get $e)))
      (call $clear (local.get $e))
      (call $drop_fields (local.get $h))
      (if (local.get $r) (then (call $release_response (local.get $r))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (global.set $queued (i32.const 0)))

  ;; A read's result (`result<list<u8>, stream-error>` at `ret`): at the end of a body stream
  ;; (closed, or failed: the engine reads no further either way) the stream and its body go.
  (func $after_read (param $s i32) (param $ret i32)
    (local $e i32)
    (if (i32.eqz (i32.load8_u (local.get $ret))) (then (return)))
    (if (i32.eqz (i32.load8_u offset=4 (local.get $ret)))
      ;; last-operation-failed: the engine never reads the error.
      (then (call $drop_error (i32.load offset=8 (local.get $ret)))))
    (local.set $e (call $entry_of (local.get $s) (global.get $STREAM)))
    (if (i32.eqz (local.get $e)) (then (return)))
    (call $finish_body (i32.load offset=8 (local.get $e)) (local.get $s)))

  ;; A body whose stream ended: the stream and the body are dropped, and the response too if
  ;; its headers were taken (the engine then needs nothing more of it).
  (func $finish_body (param $b i32) (param $s i32)
    (local $e i32) (local $r i32)
    (local.set $e (call $entry_of (local.get $b) (global.get $BODY)))
    (if (i32.eqz (local.get $e)) (then (call $release_stream (local.get $s)) (return)))
    (local.set $r (i32.load offset=4 (local.get $e)))
    (call $release_body (local.get $b))
    (local.set $e (call $entry_of (local.get $r) (global.get $RESPONSE)))
    (if (i32.and (i32.ne (local.get $e) (i32.const 0))
                 (i32.ne (i32.and (i32.load offset=8 (local.get $e)) (global.get $HEADERS_TAKEN))
                         (i32.const 0)))
      (then (call $release_response (local.get $r)))))

  ;; How much a read of stream `s` asks for: at least $BODY_READ of a response body.
  (func $read_size (param $s i32) (param $len i64) (result i64)
    (if (result i64) (i32.and (i32.ne (call $entry_of (local.get $s) (global.get $STREAM)) (i32.const 0))
                              (i64.lt_u (local.get $len) (global.get $BODY_READ)))
      (then (global.get $BODY_READ))
      (else (local.get $len))))

  (func (export "wasi:io/streams@0.2.10#[method]input-stream.read")
    (param $s i32) (param $len i64) (param $ret i32)
    (call $flush)
    (call $read (local.get $s) (call $read_size (local.get $s) (local.get $len)) (local.get $ret))
    (call $after_read (local.get $s) (local.get $ret)))

  (func (export "wasi:io/streams@0.2.10#[method]input-stream.blocking-read")
    (param $s i32) (param $len i64) (param $ret i32)
    (call $flush)
    (call $blocking_read (local.get $s) (call $read_size (local.get $s) (local.get $len)) (local.get $ret))
    (call $after_read (local.get $s) (local.get $ret)))

  ;; A body stream's readiness: one pollable per stream, however often the engine asks.
  (func (export "wasi:io/streams@0.2.10#[method]input-stream.subscribe")
    (param $s i32) (result i32)
    (local $e i32) (local $p i32)
    (call $flush)
    (local.set $e (call $entry_of (local.get $s) (global.get $STREAM)))
    (if (i32.eqz (local.get $e)) (then (return (call $subscribe (local.get $s)))))
    (if (i32.load offset=4 (local.get $e)) (then (return (i32.load offset=4 (local.get $e)))))
    (local.set $p (call $subscribe (local.get $s)))
    (call $set (local.get $p) (global.get $MEMO_POLLABLE) (local.get $s) (i32.const 0))
    ;; `set` may have moved the table.
    (local.set $e (call $entry_of (local.get $s) (global.get $STREAM)))
    (if (local.get $e) (then (i32.store offset=4 (local.get $e) (local.get $p))))
    (local.get $p))

  (func (export "wasi:io/poll@0.2.10#[resource-drop]pollable") (param $p i32)
    (local $e i32) (local $f i32)
    ;; A stream's pollable lives as long as its stream.
    (if (call $entry_of (local.get $p) (global.get $MEMO_POLLABLE)) (then (return)))
    (local.set $e (call $entry_of (local.get $p) (global.get $FUTURE_POLLABLE)))
    (if (local.get $e)
      (then (local.set $f (call $entry_of (i32.load offset=4 (local.get $e)) (global.get $FUTURE)))
            (if (local.get $f) (then (i32.store offset=4 (local.get $f) (i32.const 0))))
            (call $clear (local.get $e))))
    (call $drop_pollable (local.get $p)))

  (func (export "wasi:io/streams@0.2.10#[resource-drop]input-stream") (param $s i32)
    (local $e i32) (local $b i32)
    (local.set $e (call $entry_of (local.get $s) (global.get $STREAM)))
    (if (i32.eqz (local.get $e)) (then (call $drop_input_stream (local.get $s)) (return)))
    (local.set $b (call $entry_of (i32.load offset=8 (local.get $e)) (global.get $BODY)))
    (if (local.get $b) (then (i32.store offset=8 (local.get $b) (i32.const 0))))
    (call $release_stream (local.get $s)))

  (func (export "wasi:http/types@0.2.10#[method]future-incoming-response.subscribe")
    (param $f i32) (result i32)
    (local $p i32)
    (call $flush)
    (local.set $p (call $future_subscribe (local.get $f)))
    (call $set (local.get $p) (global.get $FUTURE_POLLABLE) (local.get $f) (i32.const 0))
    (call $set (local.get $f) (global.get $FUTURE) (local.get $p) (i32.const 0))
    (local.get $p))

  ;; `option<result<result<incoming-response, error-code>>>` at `ret`: once it is there, the
  ;; future is done with (the engine never asks it again) and goes with its pollable.
  (func (export "wasi:http/types@0.2.10#[method]future-incoming-response.get")
    (param $f i32) (param $ret i32)
    (local $e i32)
    (call $flush)
    (call $future_get (local.get $f) (local.get $ret))
    (if (i32.ne (i32.load8_u (local.get $ret)) (i32.const 1)) (then (return)))
    (if (i32.eqz (i32.or (i32.load8_u offset=8 (local.get $ret)) (i32.load8_u offset=16 (local.get $ret))))
      (then (call $set (i32.load offset=24 (local.get $ret)) (global.get $RESPONSE) (i32.const 0) (i32.const 0))))
    (local.set $e (call $entry_of (local.get $f) (global.get $FUTURE)))
    (if (local.get $e)
      (then (if (i32.load offset=4 (local.get $e))
              (then (call $clear (call $entry_of (i32.load offset=4 (local.get $e)) (global.get $FUTURE_POLLABLE)))
                    (call $drop_pollable (i32.load offset=4 (local.get $e)))))
            (call $clear (local.get $e))))
    (call $drop_future (local.get $f)))

  (func (export "wasi:http/types@0.2.10#[method]incoming-response.headers")
    (param $r i32) (result i32)
    (local $h i32) (local $e i32)
    (call $flush)
    (local.set $h (call $headers (local.get $r)))
    (call $set (local.get $h) (global.get $HEADERS) (local.get $r) (i32.const 0))
    (local.set $e (call $entry_of (local.get $r) (global.get $RESPONSE)))
    (if (i32.eqz (local.get $e)) (then (return (local.get $h))))
    (i32.store offset=12 (local.get $e) (local.get $h))
    (i32.store offset=8 (local.get $e) (i32.or (i32.load offset=8 (local.get $e)) (global.get $HEADERS_TAKEN)))
    (if (i32.and (i32.load offset=8 (local.get $e)) (global.get $BODY_DONE))
      (then (call $release_response (local.get $r))))
    (local.get $h))

  ;; `result<incoming-body>` at `ret`.
  (func (export "wasi:http/types@0.2.10#[method]incoming-response.consume")
    (param $r i32) (param $ret i32)
    (local $b i32) (local $e i32)
    (call $flush)
    (call $consume (local.get $r) (local.get $ret))
    (if (i32.load8_u (local.get $ret)) (then (return)))
    (local.set $b (i32.load offset=4 (local.get $ret)))
    (call $set (local.get $b) (global.get $BODY) (local.get $r) (i32.const 0))
    (local.set $e (call $entry_of (local.get $r) (global.get $RESPONSE)))
    (if (local.get $e) (then (i32.store offset=4 (local.get $e) (local.get $b)))))

  ;; `result<input-stream>` at `ret`.
  (func (export "wasi:http/types@0.2.10#[method]incoming-body.stream")
    (param $b i32) (param $ret i32)
    (local $s i32) (local $e i32)
    (call $flush)
    (call $stream (local.get $b) (local.get $ret))
    (if (i32.load8_u (local.get $ret)) (then (return)))
    (local.set $s (i32.load offset=4 (local.get $ret)))
    (call $set (local.get $s) (global.get $STREAM) (i32.const 0) (local.get $b))
    (local.set $e (call $entry_of (local.get $b) (global.get $BODY)))
    (if (local.get $e) (then (i32.store offset=8 (local.get $e) (local.get $s)))))

  ;; `Headers` finalizer (gcx, object): takes the fields handle out of the object's host
  ;; headers (reserved slot 0: HttpHeadersReadOnly { vtable, handle state }, the handle state
  ;; WASIHandle { vtable, handle }), poisons it, and queues it; then the engine's finalizer.
  (func (export "headers_finalize") (param $gcx i32) (param $object i32)
    (local $fixed i32) (local $readonly i32) (local $state i32) (local $h i32)
    ;; NativeObject: shape at 0 (its fixed-slot count in bits 6..10 at offset 4), dynamic slots
    ;; at 8, fixed slots from 16; slot 0 is the first fixed slot, if any, else the first
    ;; dynamic one. A private pointer is the low word of the slot's value.
    (local.set $fixed (i32.and (i32.shr_u (i32.load offset=4 (i32.load (local.get $object))) (i32.const 6))
                               (i32.const 31)))
    (local.set $readonly (i32.load (select (i32.add (local.get $object) (i32.const 16))
                                           (i32.load offset=8 (local.get $object))
                                           (local.get $fixed))))
    (if (local.get $readonly)
      (then
        (local.set $state (i32.load offset=4 (local.get $readonly)))
        (if (local.get $state)
          (then
            (local.set $h (i32.load offset=4 (local.get $state)))
            (if (i32.and (i32.gt_s (local.get $h) (i32.const 0))
                         (i32.lt_u (global.get $queued) (global.get $QUEUE_CAPACITY)))
              (then
                (if (global.get $queue)
                  (then
                    (i32.store (i32.add (global.get $queue) (i32.shl (global.get $queued) (i32.const 2)))
                               (local.get $h))
                    (global.set $queued (i32.add (global.get $queued) (i32.const 1)))
                    (i32.store offset=4 (local.get $state) (i32.const -1))))))))))
    (call $headers_finalize (local.get $gcx) (local.get $object))))
