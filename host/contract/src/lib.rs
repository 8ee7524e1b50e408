//! Host bindings of the `bench:task/task` world (`wit/task.wit`): the one contract between
//! bench and a task component. The generated items are documented in the WIT.

#![allow(missing_docs)]

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "task",
    // A host function may end the task (a trap) when the task crosses one of its bounds.
    imports: { default: trappable },
    exports: { default: async },
});
