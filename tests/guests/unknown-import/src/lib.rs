//! A task importing an interface the host does not provide.

wit_bindgen::generate!({
    inline: "
        package test:unknown;

        interface gpu {
            compute: func() -> u32;
        }

        world task {
            import gpu;
            export config: func() -> string;
            export run: func() -> string;
        }
    ",
});

struct Unknown;

impl Guest for Unknown {
    fn config() -> String {
        test::unknown::gpu::compute().to_string()
    }

    fn run() -> String {
        String::new()
    }
}

export!(Unknown);
