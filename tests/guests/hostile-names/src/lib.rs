//! A task whose config is hostile data: its slug climbs out of the working directory, its
//! participant names are not file names (`a/b` beside `a_b`, a 300-character name) or carry
//! terminal escape sequences, and the escaping participant fails with an error code and
//! message full of control characters.

use bench_guest::{
    export_task, BenchmarkConfig, Context, Participant, Task, TaskError, TaskOutput, TaskResult,
};

/// A participant name that would clear the screen and set the window title.
const ESCAPING: &str = "esc\u{1b}[2J\u{1b}]0;owned\u{7}";

struct HostileNames;

impl Task for HostileNames {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("../../escaped-slug", "Hostile names")
            .participant(Participant::new("a/b"))
            .participant(Participant::new("a_b"))
            .participant(Participant::new("n".repeat(300)))
            .participant(Participant::new(ESCAPING))
            .iterations(1)
    }

    fn run(ctx: &Context) -> TaskResult {
        let name = ctx.participant_name();
        ctx.log(&format!("written by {}", name.len()));
        if name == ESCAPING {
            return Err(TaskError::new("bad\nmessage\u{1b}[2J").code("bad\ncode\u{1b}[2J"));
        }
        Ok(TaskOutput::new())
    }
}

export_task!(HostileNames);
