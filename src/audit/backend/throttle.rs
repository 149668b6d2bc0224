//! client-go's token bucket (`flowcontrol.NewTokenBucketRateLimiter`, on
//! golang.org/x/time/rate): `qps` tokens a second, up to `burst` saved, full at the
//! start; each batch takes one, waiting for it when none is left.

use std::time::{Duration, Instant};

use super::settings::Throttle;

/// A token bucket; [`TokenBucket::reserve`] is its pure core.
#[derive(Debug)]
pub struct TokenBucket {
    qps: f64,
    burst: f64,
    tokens: f64,
    last: Option<Instant>,
}

impl TokenBucket {
    pub fn new(throttle: Throttle) -> TokenBucket {
        let burst = throttle.burst as f64;
        TokenBucket {
            qps: f64::from(throttle.qps),
            burst,
            tokens: burst,
            last: None,
        }
    }

    /// Takes a token at `now`: how long to wait before using it.
    pub fn reserve(&mut self, now: Instant) -> Duration {
        if let Some(last) = self.last {
            let elapsed = now.saturating_duration_since(last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
        }
        self.last = Some(now);
        self.tokens -= 1.0;
        match self.tokens < 0.0 && self.qps > 0.0 {
            true => Duration::try_from_secs_f64(-self.tokens / self.qps).unwrap_or(Duration::MAX),
            false => Duration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_past_burst_waits_one_token_each() {
        let mut bucket = TokenBucket::new(Throttle {
            qps: 10.0,
            burst: 2,
        });
        let start = Instant::now();
        let waits: Vec<u128> = (0..5).map(|_| bucket.reserve(start).as_millis()).collect();
        // Two from the burst, then each waits 100ms more than the one before.
        assert_eq!(waits, [0, 0, 100, 200, 300]);
        // A second later the bucket is full again (burst 2), not 10 tokens ahead.
        let later = start + Duration::from_millis(1300);
        let waits: Vec<u128> = (0..3).map(|_| bucket.reserve(later).as_millis()).collect();
        assert_eq!(waits, [0, 0, 100]);
    }
}
