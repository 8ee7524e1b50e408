//! A task built against a newer bench contract (`bench:task@0.2.0`) than the host provides.

wit_bindgen::generate!({
    inline: "
        package bench:task@0.2.0;

        interface context {
            log: func(message: string);
        }

        world task {
            import context;
            export config: func() -> string;
            export run: func() -> string;
        }
    ",
});

struct Future;

impl Guest for Future {
    fn config() -> String {
        bench::task::context::log("config");
        "{}".into()
    }

    fn run() -> String {
        String::new()
    }
}

export!(Future);
