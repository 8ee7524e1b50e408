//! Host bindings of the `bench:task/task` world (`wit/task.wit`).

wasmtime::component::bindgen!({
    path: "../wit",
    world: "task",
    exports: { default: async },
});
