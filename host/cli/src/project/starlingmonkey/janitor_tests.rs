//! The janitor spliced into a stand-in engine (`testdata/engine.wat`), its imports played by
//! a host that keeps a table of live handles with wasmtime's rules: a stream with a live
//! pollable, a body with a live stream and a future with a live pollable cannot be dropped,
//! and a handle cannot be dropped twice.

use super::{splice, JANITOR};
use std::collections::BTreeMap;
use wasmtime::{Caller, Engine, Instance, Linker, Module, Store};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Future,
    Pollable,
    Response,
    Fields,
    Body,
    Stream,
    Error,
}

/// The host's table, and what the guest did wrong.
#[derive(Default)]
struct Host {
    next: u32,
    /// Live handles: kind and parent (a pollable's stream or future, a stream's body).
    live: BTreeMap<u32, (Kind, Option<u32>)>,
    errors: Vec<String>,
    /// Reads a stream answers with data before it ends (or fails, for `failing`).
    data_reads: u32,
    failing: bool,
    reads: BTreeMap<u32, u32>,
    /// The size each read asked for, in order.
    read_sizes: Vec<u64>,
}

impl Host {
    fn open(&mut self, kind: Kind, parent: Option<u32>) -> u32 {
        self.next += 1;
        self.live.insert(self.next, (kind, parent));
        self.next
    }

    fn drop_handle(&mut self, handle: u32, kind: Kind) {
        match self.live.get(&handle) {
            Some((live, _)) if *live == kind => {}
            other => {
                self.errors
                    .push(format!("drop of {kind:?} {handle}: it is {other:?}"));
                return;
            }
        }
        if self
            .live
            .values()
            .any(|(_, parent)| *parent == Some(handle))
        {
            self.errors
                .push(format!("drop of {kind:?} {handle} while it has children"));
            return;
        }
        self.live.remove(&handle);
    }

    fn expect_live(&mut self, handle: u32, kind: Kind) {
        if self.live.get(&handle).map(|(live, _)| *live) != Some(kind) {
            self.errors
                .push(format!("{kind:?} {handle} used but not live"));
        }
    }

    fn kinds(&self) -> Vec<Kind> {
        self.live.values().map(|(kind, _)| *kind).collect()
    }
}

fn write(caller: &mut Caller<'_, Host>, at: u32, bytes: &[u8]) {
    let memory = caller
        .get_export("memory")
        .and_then(|export| export.into_memory())
        .unwrap();
    memory.write(caller, at as usize, bytes).unwrap();
}

struct Guest {
    store: Store<Host>,
    instance: Instance,
}

impl Guest {
    fn new(host: Host) -> Self {
        let engine_text = include_str!("testdata/engine.wat");
        let engine_module = wat::parse_str(engine_text).unwrap();
        let spliced = splice::with_janitor(&engine_module, JANITOR).unwrap();
        let engine = Engine::default();
        let module = Module::new(&engine, &spliced).unwrap();
        let mut linker = Linker::<Host>::new(&engine);
        let drops = [
            (
                "wasi:io/poll@0.2.10",
                "[resource-drop]pollable",
                Kind::Pollable,
            ),
            (
                "wasi:io/streams@0.2.10",
                "[resource-drop]input-stream",
                Kind::Stream,
            ),
            ("wasi:io/error@0.2.10", "[resource-drop]error", Kind::Error),
            (
                "wasi:http/types@0.2.10",
                "[resource-drop]fields",
                Kind::Fields,
            ),
            (
                "wasi:http/types@0.2.10",
                "[resource-drop]incoming-response",
                Kind::Response,
            ),
            (
                "wasi:http/types@0.2.10",
                "[resource-drop]incoming-body",
                Kind::Body,
            ),
            (
                "wasi:http/types@0.2.10",
                "[resource-drop]future-incoming-response",
                Kind::Future,
            ),
        ];
        for (module, name, kind) in drops {
            linker
                .func_wrap(
                    module,
                    name,
                    move |mut caller: Caller<'_, Host>, handle: u32| {
                        caller.data_mut().drop_handle(handle, kind);
                    },
                )
                .unwrap();
        }
        let http = "wasi:http/types@0.2.10";
        let streams = "wasi:io/streams@0.2.10";
        let subscriptions = [
            (
                http,
                "[method]future-incoming-response.subscribe",
                Kind::Future,
            ),
            (streams, "[method]input-stream.subscribe", Kind::Stream),
        ];
        for (module, name, kind) in subscriptions {
            linker
                .func_wrap(
                    module,
                    name,
                    move |mut caller: Caller<'_, Host>, of: u32| {
                        caller.data_mut().expect_live(of, kind);
                        caller.data_mut().open(Kind::Pollable, Some(of))
                    },
                )
                .unwrap();
        }
        linker
            .func_wrap(
                http,
                "[method]future-incoming-response.get",
                |mut caller: Caller<'_, Host>, future: u32, ret: u32| {
                    caller.data_mut().expect_live(future, Kind::Future);
                    let response = caller.data_mut().open(Kind::Response, None);
                    let mut answer = [0u8; 28];
                    answer[0] = 1;
                    answer[24..28].copy_from_slice(&response.to_le_bytes());
                    write(&mut caller, ret, &answer);
                },
            )
            .unwrap();
        linker
            .func_wrap(
                http,
                "[method]incoming-response.headers",
                |mut caller: Caller<'_, Host>, response: u32| {
                    caller.data_mut().expect_live(response, Kind::Response);
                    caller.data_mut().open(Kind::Fields, None)
                },
            )
            .unwrap();
        linker
            .func_wrap(
                http,
                "[method]incoming-response.consume",
                |mut caller: Caller<'_, Host>, response: u32, ret: u32| {
                    caller.data_mut().expect_live(response, Kind::Response);
                    let body = caller.data_mut().open(Kind::Body, None);
                    write(
                        &mut caller,
                        ret,
                        &[&[0u8; 4][..], &body.to_le_bytes()].concat(),
                    );
                },
            )
            .unwrap();
        linker
            .func_wrap(
                http,
                "[method]incoming-body.stream",
                |mut caller: Caller<'_, Host>, body: u32, ret: u32| {
                    caller.data_mut().expect_live(body, Kind::Body);
                    let stream = caller.data_mut().open(Kind::Stream, Some(body));
                    write(
                        &mut caller,
                        ret,
                        &[&[0u8; 4][..], &stream.to_le_bytes()].concat(),
                    );
                },
            )
            .unwrap();
        for name in [
            "[method]input-stream.read",
            "[method]input-stream.blocking-read",
        ] {
            linker
                .func_wrap(
                    streams,
                    name,
                    |mut caller: Caller<'_, Host>, stream: u32, len: u64, ret: u32| {
                        let host = caller.data_mut();
                        host.expect_live(stream, Kind::Stream);
                        host.read_sizes.push(len);
                        let reads = host.reads.entry(stream).or_default();
                        *reads += 1;
                        let answer = if *reads <= host.data_reads {
                            [0u8; 12] // ok: an empty list
                        } else if host.failing {
                            let error = host.open(Kind::Error, None);
                            let mut answer = [0u8; 12];
                            answer[0] = 1;
                            answer[8..12].copy_from_slice(&error.to_le_bytes());
                            answer
                        } else {
                            let mut answer = [0u8; 12];
                            answer[0] = 1;
                            answer[4] = 1; // closed
                            answer
                        };
                        write(&mut caller, ret, &answer);
                    },
                )
                .unwrap();
        }
        let mut store = Store::new(&engine, host);
        let instance = linker.instantiate(&mut store, &module).unwrap();
        Guest { store, instance }
    }

    fn call(&mut self, name: &str, handle: u32) -> u32 {
        let function = self
            .instance
            .get_typed_func::<u32, u32>(&mut self.store, name)
            .unwrap();
        function.call(&mut self.store, handle).unwrap()
    }

    fn call_void(&mut self, name: &str, handle: u32) {
        let function = self
            .instance
            .get_typed_func::<u32, ()>(&mut self.store, name)
            .unwrap();
        function.call(&mut self.store, handle).unwrap();
    }

    fn host(&mut self) -> &mut Host {
        self.store.data_mut()
    }

    /// A fetch as the engine makes it: the future answers, the headers are taken, the body is
    /// consumed and its stream subscribed to; returns (headers, stream).
    fn fetch(&mut self) -> (u32, u32) {
        let future = self.host().open(Kind::Future, None);
        self.call("future_subscribe", future);
        let response = self.call("future_get", future);
        assert_ne!(response, 0);
        let headers = self.call("headers", response);
        let body = self.call("consume", response);
        let stream = self.call("stream", body);
        (headers, stream)
    }

    fn assert_no_errors(&mut self) {
        let errors = &self.host().errors;
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

#[test]
fn a_body_read_to_its_end_leaves_only_the_headers_until_they_are_collected() {
    let mut guest = Guest::new(Host {
        data_reads: 3,
        ..Host::default()
    });
    let (headers, stream) = guest.fetch();
    let pollable = guest.call("subscribe", stream);
    for _ in 0..3 {
        assert_eq!(
            guest.call("subscribe", stream),
            pollable,
            "one pollable per stream"
        );
        assert_eq!(guest.call("read", stream), 0);
    }
    assert_eq!(guest.call("read", stream), 1, "the stream ended");
    assert_eq!(guest.host().kinds(), [Kind::Fields]);

    assert_eq!(guest.call("collect_headers", headers), u32::MAX, "poisoned");
    let finalized = guest
        .instance
        .get_global(&mut guest.store, "finalized")
        .unwrap();
    assert_eq!(
        finalized.get(&mut guest.store).i32(),
        Some(1),
        "the engine's finalizer ran"
    );
    assert_eq!(
        guest.host().kinds(),
        [Kind::Fields],
        "queued, not dropped during collection"
    );
    let (_, next_stream) = guest.fetch();
    assert_eq!(
        guest.host().kinds(),
        [Kind::Response, Kind::Fields, Kind::Body, Kind::Stream],
        "the next fetch's handles only"
    );
    assert!(next_stream > stream);
    guest.assert_no_errors();
}

#[test]
fn a_collected_response_takes_its_unread_body_along() {
    let mut guest = Guest::new(Host::default());
    let (headers, stream) = guest.fetch();
    guest.call("subscribe", stream);
    guest.call("collect_headers", headers);
    // The next wasi:http call drops what the collector queued.
    let future = guest.host().open(Kind::Future, None);
    guest.call("future_subscribe", future);
    assert_eq!(guest.host().kinds(), [Kind::Future, Kind::Pollable]);
    guest.assert_no_errors();
}

#[test]
fn a_failed_read_ends_the_body_and_drops_its_error() {
    let mut guest = Guest::new(Host {
        failing: true,
        ..Host::default()
    });
    let (_, stream) = guest.fetch();
    guest.call("subscribe", stream);
    assert_eq!(guest.call("blocking_read", stream), 1);
    assert_eq!(guest.host().kinds(), [Kind::Fields]);
    guest.assert_no_errors();
}

#[test]
fn the_engine_dropping_a_stream_drops_its_pollable_first() {
    let mut guest = Guest::new(Host::default());
    let (_, stream) = guest.fetch();
    let pollable = guest.call("subscribe", stream);
    guest.call_void("drop_pollable", pollable);
    assert!(
        guest.host().live.contains_key(&pollable),
        "kept for the stream"
    );
    guest.call_void("drop_stream", stream);
    assert!(!guest.host().live.contains_key(&pollable));
    assert!(!guest.host().live.contains_key(&stream));
    guest.assert_no_errors();
}

#[test]
fn other_pollables_are_dropped_when_the_engine_drops_them() {
    let mut guest = Guest::new(Host::default());
    let untracked = guest.host().open(Kind::Pollable, None);
    guest.call_void("drop_pollable", untracked);
    assert!(guest.host().live.is_empty());
    guest.assert_no_errors();
}

#[test]
fn a_body_is_read_in_chunks_of_a_mebibyte_other_streams_as_the_engine_asks() {
    let mut guest = Guest::new(Host {
        data_reads: 1,
        ..Host::default()
    });
    let (_, stream) = guest.fetch();
    assert_eq!(guest.call("read", stream), 0);
    assert_eq!(guest.call("blocking_read", stream), 1);
    let other = guest.host().open(Kind::Stream, None);
    guest.call("read", other);
    assert_eq!(guest.host().read_sizes, [1 << 20, 1 << 20, 8192]);
    guest.assert_no_errors();
}
