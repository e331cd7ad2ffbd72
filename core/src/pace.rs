//! Long work sharing the runtime's workers with requests: an import reads and writes for
//! tens of seconds on the same two workers that answer reads, and a request queued on a
//! worker waits for whatever that worker runs until it next awaits.

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs CPU-bound work on a runtime worker without holding up the other tasks queued on
/// it: on a multi-threaded runtime the worker hands its queue to another thread for the
/// duration ([`tokio::task::block_in_place`]); elsewhere (a single-threaded test
/// runtime) it simply runs.
pub fn cpu_bound<T>(work: impl FnOnce() -> T) -> T {
    match Handle::try_current() {
        Ok(runtime) if runtime.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// A loop's yields to the runtime's other tasks: [`YieldEvery::tick`] once per step, and
/// every `n`th step lets the tasks queued on this worker run.
#[derive(Debug)]
pub struct YieldEvery {
    every: u32,
    steps: u32,
}

impl YieldEvery {
    pub fn new(every: u32) -> Self {
        Self {
            every: every.max(1),
            steps: 0,
        }
    }

    pub async fn tick(&mut self) {
        self.steps += 1;
        if self.steps == self.every {
            self.steps = 0;
            tokio::task::yield_now().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cpu_bound_work_runs_on_a_multi_threaded_runtime() {
        assert_eq!(cpu_bound(|| 2 + 2), 4);
    }

    #[tokio::test]
    async fn cpu_bound_work_runs_on_a_single_threaded_runtime() {
        // block_in_place would panic here.
        assert_eq!(cpu_bound(|| 2 + 2), 4);
    }

    #[tokio::test]
    async fn yields_come_every_nth_step() {
        let mut pace = YieldEvery::new(3);
        for step in 1..=7u32 {
            pace.tick().await;
            assert_eq!(pace.steps, step % 3);
        }
        let mut never_zero = YieldEvery::new(0);
        never_zero.tick().await;
        assert_eq!(never_zero.steps, 0, "an interval of 0 yields at every step");
    }
}
