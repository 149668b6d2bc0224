//! What the bench reads of its own child processes and of the machine from `/proc`:
//! resident memory (VmRSS), its high-water mark (VmHWM, reset through `clear_refs`), the
//! pid of an etcd by its data dir, the machine line, and the open-files limit.

use std::path::Path;

/// A `kB` field of `/proc/<pid>/status`, in bytes.
fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("read /proc/{pid}/status: {e}"));
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("/proc/{pid}/status has no {field}"));
    let kb: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{field} of {pid}: {line}"));
    kb * 1024
}

/// Resident set size now.
pub fn rss(pid: u32) -> u64 {
    status_bytes(pid, "VmRSS:")
}

/// The peak resident set size since start or the last [`reset_peak`].
pub fn peak(pid: u32) -> u64 {
    status_bytes(pid, "VmHWM:")
}

/// Resets VmHWM to the current RSS: `5` in `clear_refs` (Linux ≥ 4.0, own processes).
pub fn reset_peak(pid: u32) {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5")
        .unwrap_or_else(|e| panic!("reset VmHWM of {pid} through clear_refs: {e}"));
}

/// The pid of the etcd whose data lives under `dir` (`common::etcd` keeps its child
/// private; its command line names the data dir, which is unique to it).
pub fn etcd_pid(dir: &Path) -> u32 {
    let flag = format!("--data-dir={}", dir.join("data").display());
    for entry in std::fs::read_dir("/proc").expect("list /proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|b| *b == 0).any(|arg| arg == flag.as_bytes()) {
            return pid;
        }
    }
    panic!("no etcd process with {flag}")
}

/// `nproc`, the CPU model and the memory of this machine, for the report.
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown CPU", str::trim)
        .to_string();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_kb: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0);
    format!(
        "machine: {cpus} CPUs (nproc), {model}, {:.1} GiB memory",
        mem_kb as f64 / (1024.0 * 1024.0)
    )
}

/// Raises the soft open-files limit to the hard one: a thousand watch streams (each an
/// etcd gRPC stream or an HTTP stream, on one connection per 50) plus the servers' own
/// files stay far below it, and spawned servers inherit it.
pub fn raise_open_files() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    setrlimit(Resource::Nofile, raised).expect("raise the soft RLIMIT_NOFILE to the hard one");
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}
