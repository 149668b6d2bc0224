//! The webhook's retries as kube's `webhook.WithExponentialBackoff` makes them
//! (`DefaultRetryBackoffWithInitialDelay`: the first delay, then × 1.5, each with up to
//! 20% jitter, 5 attempts in all), retrying on every error as the audit webhook does.

use std::future::Future;
use std::time::Duration;

/// apimachinery's `wait.Backoff`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    pub duration: Duration,
    pub factor: f64,
    pub jitter: f64,
    /// Attempts in all.
    pub steps: u32,
}

impl Backoff {
    /// kube's `DefaultRetryBackoffWithInitialDelay`.
    pub fn with_initial_delay(initial: Duration) -> Backoff {
        Backoff {
            duration: initial,
            factor: 1.5,
            jitter: 0.2,
            steps: 5,
        }
    }

    /// The next delay (`wait.Backoff.Step`); `random` in [0, 1) draws the jitter.
    pub fn step(&mut self, random: f64) -> Duration {
        let delay = self.duration;
        if self.steps > 0 {
            self.steps -= 1;
            self.duration = self.duration.mul_f64(self.factor);
        }
        match self.jitter > 0.0 {
            true => delay + delay.mul_f64(random * self.jitter),
            false => delay,
        }
    }
}

/// Calls `attempt` until it succeeds or the backoff's attempts are spent, sleeping the
/// backoff's delays in between; the last error when none succeeded.
pub async fn retry<T, E, F, Fut>(mut backoff: Backoff, mut attempt: F) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    loop {
        let error = match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        if backoff.steps <= 1 {
            return Err(error);
        }
        tokio::time::sleep(backoff.step(rand::random())).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[test]
    fn step_of_default_backoff_grows_by_half_with_jitter() {
        let cases: [(f64, [f64; 4]); 2] = [
            (0.0, [10.0, 15.0, 22.5, 33.75]),
            (0.5, [11.0, 16.5, 24.75, 37.125]),
        ];
        for (random, want) in cases {
            let mut backoff = Backoff::with_initial_delay(Duration::from_secs(10));
            let got: Vec<f64> = (0..4).map(|_| backoff.step(random).as_secs_f64()).collect();
            for (got, want) in got.iter().zip(want) {
                assert!(
                    (got - want).abs() < 1e-6,
                    "random {random}: {got} != {want}"
                );
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retry_failing_attempts_stops_after_five() {
        let calls = AtomicU32::new(0);
        let start = tokio::time::Instant::now();
        let result: Result<(), u32> = retry(
            Backoff::with_initial_delay(Duration::from_secs(1)),
            || async { Err(calls.fetch_add(1, Ordering::SeqCst) + 1) },
        )
        .await;
        assert_eq!(result, Err(5));
        // 1 + 1.5 + 2.25 + 3.375 s of waits, each with at most 20% more.
        let waited = start.elapsed().as_secs_f64();
        assert!((8.125..=9.75).contains(&waited), "{waited}");
    }

    #[tokio::test(start_paused = true)]
    async fn retry_success_on_third_attempt_returns_it() {
        let calls = AtomicU32::new(0);
        let result: Result<u32, ()> = retry(
            Backoff::with_initial_delay(Duration::from_millis(10)),
            || async {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 3 { Err(()) } else { Ok(n) }
            },
        )
        .await;
        assert_eq!(result, Ok(3));
    }
}
