//! The CPU time each process spends per operation of a create or GET cell: the server,
//! etcd and this load generator. They share the machine's cores, so a cell's rate is
//! bounded by what all three spend per operation, and these figures say which spends it.

use std::future::Future;
use std::time::Duration;

use crate::Counts;
use crate::cpu::Cpu;

/// The processes whose CPU a cell charges.
pub struct Meters {
    server: Option<Cpu>,
    etcd: Option<Cpu>,
    generator: Cpu,
}

/// CPU microseconds per operation, by process (0 for a process not in the cell).
#[derive(Clone, Copy, Default)]
pub struct PerOp {
    pub server: f64,
    pub etcd: f64,
    pub generator: f64,
}

impl PerOp {
    pub fn total(&self) -> f64 {
        self.server + self.etcd + self.generator
    }
}

impl Meters {
    pub fn new(server: Option<u32>, etcd: Option<u32>) -> Meters {
        Meters {
            server: server.map(Cpu::of),
            etcd: etcd.map(Cpu::of),
            generator: Cpu::of(std::process::id()),
        }
    }

    /// Runs `cell` and charges each process's CPU time to its completed operations.
    pub async fn measure<F: Future<Output = Counts>>(&self, cell: F) -> (Counts, PerOp) {
        let before = self.read();
        let counts = cell.await;
        let after = self.read();
        let ops = counts.ok.max(1) as f64;
        let per_op = |i: usize| (after[i] - before[i]).as_secs_f64() * 1e6 / ops;
        let cpu = PerOp {
            server: per_op(0),
            etcd: per_op(1),
            generator: per_op(2),
        };
        (counts, cpu)
    }

    fn read(&self) -> [Duration; 3] {
        let used = |cpu: &Option<Cpu>| cpu.as_ref().map_or(Duration::ZERO, Cpu::used);
        [used(&self.server), used(&self.etcd), self.generator.used()]
    }
}
