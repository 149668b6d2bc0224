//! The create and GET cells' own tables: rates against the raw store, and the CPU each
//! process spent per operation; and their rows in the combined table.

use crate::Counts;
use crate::meters::PerOp;
use crate::report;

/// A create or GET cell: its rate and what each process spent per operation.
pub struct Cell {
    pub per_sec: f64,
    pub cpu: PerOp,
}

impl From<(Counts, PerOp)> for Cell {
    fn from((counts, cpu): (Counts, PerOp)) -> Cell {
        Cell {
            per_sec: counts.per_sec(),
            cpu,
        }
    }
}

pub struct Row {
    pub backend: &'static str,
    pub op: &'static str,
    pub concurrency: usize,
    pub full: Cell,
    pub raw: f64,
    /// The raw etcd cell (etcd-backed rows only; the embedded store's raw figure runs in
    /// this process).
    pub raw_etcd: Option<Cell>,
}

pub fn print(rows: &[Row]) {
    println!();
    println!("| backend  | operation | concurrency | full stack ops/s | raw store ops/s | ratio |");
    println!("|----------|-----------|------------:|-----------------:|----------------:|------:|");
    for r in rows {
        println!(
            "| {:<8} | {:<9} | {:>11} | {:>16.0} | {:>15.0} | {:>5.2} |",
            r.backend,
            r.op,
            r.concurrency,
            r.full.per_sec,
            r.raw,
            r.full.per_sec / r.raw
        );
    }
    println!();
    println!("CPU µs per operation by process, and the cores the three kept busy together:");
    println!();
    println!("| cell | concurrency | ops/s | server | etcd | load generator | all | cores busy |");
    println!("|------|------------:|------:|-------:|-----:|---------------:|----:|-----------:|");
    let line = |what: String, concurrency: usize, cell: &Cell| {
        let c = &cell.cpu;
        println!(
            "| {what} | {concurrency} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
            cell.per_sec,
            c.server,
            c.etcd,
            c.generator,
            c.total(),
            c.total() * cell.per_sec / 1e6
        );
    };
    for r in rows {
        if let Some(raw) = &r.raw_etcd {
            let op = if r.op == "create" { "put" } else { "range" };
            line(format!("raw etcd {op}"), r.concurrency, raw);
        }
        line(
            format!("{} server, {}", r.backend, r.op),
            r.concurrency,
            &r.full,
        );
    }
}

/// Rows of the combined table: what all processes spent per etcd-backed operation against
/// a raw etcd one.
pub fn cpu_rows(rows: &[Row]) -> Vec<report::Row> {
    rows.iter()
        .filter_map(|r| {
            let raw = r.raw_etcd.as_ref()?;
            let measurement = format!("{}: CPU µs per op, server + etcd + load generator", r.op);
            Some(report::Row::new(
                r.backend,
                measurement,
                r.concurrency,
                r.full.cpu.total(),
                Some(raw.cpu.total()),
            ))
        })
        .collect()
}
