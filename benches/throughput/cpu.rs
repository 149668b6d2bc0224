//! The CPU time of another process: user + system time of all its threads, read from
//! `/proc/<pid>/stat`.
//!
//! `/proc/<pid>/stat`'s utime + stime sum every thread of the process, exited ones
//! included, and the kernel scales them so their sum follows the precise run time; their
//! unit is a clock tick (`getconf CLK_TCK`, 10 ms at 100 Hz), under 1 % of the one to
//! three CPU-seconds a cell costs. `/proc/<pid>/schedstat` counts nanoseconds but only of
//! the main thread, and summing `/proc/<pid>/task/*/schedstat` loses threads that exit
//! (tokio's blocking pool), so neither is used.

use std::process::Command;
use std::time::Duration;

/// One process's CPU clock.
pub struct Cpu {
    stat: String,
    tick: Duration,
}

impl Cpu {
    pub fn of(pid: u32) -> Cpu {
        let out = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .expect("getconf CLK_TCK (libc-bin) is required");
        let hz: u64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("CLK_TCK is a number");
        Cpu {
            stat: format!("/proc/{pid}/stat"),
            tick: Duration::from_secs(1) / hz as u32,
        }
    }

    /// User + system CPU time used so far.
    pub fn used(&self) -> Duration {
        let stat = std::fs::read_to_string(&self.stat).expect("read /proc/<pid>/stat");
        // The command name (field 2) may hold spaces; fields after its `)` start at 3.
        let rest = &stat[stat.rfind(')').expect("comm") + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = |n: usize| -> u32 { fields[n - 3].parse().expect("tick count") };
        self.tick * (ticks(14) + ticks(15))
    }
}
