//! Host bindings of the `bench:task/task` world (`wit/task.wit`): the one contract between
//! bench and a task component. The generated items are documented in the WIT.

#![allow(missing_docs)]

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "task",
    // A host function may end the task (a trap) when the task crosses one of its bounds.
    // `websocket.wait` awaits its connections and the `bodies` reads their streams without
    // holding the thread.
    imports: {
        "bench:task/websocket.wait": async | trappable,
        "bench:task/bodies.read-whole": async | trappable,
        "bench:task/bodies.read-whole-crc32": async | trappable,
        default: trappable,
    },
    exports: { default: async },
    // The pollables a WebSocket connection hands out and the streams `bodies` reads are
    // wasmtime-wasi's (`wasi:io` is linked by wasmtime-wasi, not here).
    with: {
        "wasi:io/poll": wasmtime_wasi::p2::bindings::io::poll,
        "wasi:io/streams": wasmtime_wasi::p2::bindings::io::streams,
        "wasi:io/error": wasmtime_wasi::p2::bindings::io::error,
    },
    // Host code compares what it returns to the guest (natives' errors) in its tests.
    additional_derives: [PartialEq],
});

/// The contract package this host provides, as tasks import it (`wit/task.wit`).
pub const CONTRACT_PACKAGE: &str = "bench:task@0.1.4";

#[cfg(test)]
mod tests {
    #[test]
    fn the_package_constant_is_the_wit_package() {
        let wit = include_str!("../../../wit/task.wit");
        assert!(wit.contains(&format!("\npackage {};\n", super::CONTRACT_PACKAGE)));
    }
}
