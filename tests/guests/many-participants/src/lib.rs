//! A task with 10 000 participants, each logging one line: more participant logs than a
//! common open-file limit allows at once.

use bench_guest::{
    export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct ManyParticipants;

impl Task for ManyParticipants {
    fn config() -> BenchmarkConfig {
        (0..10_000).fold(
            BenchmarkConfig::new("many-participants", "Many participants").iterations(1),
            |config, i| config.participant(Participant::new(format!("p{i:05}"))),
        )
    }

    fn run(ctx: &Context) -> TaskResult {
        ctx.log(ctx.participant_name());
        Ok(TaskOutput::new())
    }
}

export_task!(ManyParticipants);
