//! A component of another world: it exports `config` but no `run`.

wit_bindgen::generate!({
    inline: "
        package test:no-run;

        world no-run {
            export config: func() -> string;
        }
    ",
});

struct NoRun;

impl Guest for NoRun {
    fn config() -> String {
        r#"{"benchmarkSlug":"no-run","benchmarkName":"No run","participants":[{"name":"p"}]}"#.into()
    }
}

export!(NoRun);
