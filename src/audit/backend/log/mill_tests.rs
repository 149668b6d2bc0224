#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use super::*;

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

#[test]
fn backup_name_of_paths_as_lumberjack() {
    let time = at("2026-12-07T09:05:03.007Z");
    let cases = [
        (
            "/var/log/audit.log",
            "/var/log/audit-2026-12-07T09-05-03.007.log",
        ),
        ("/var/log/audit", "/var/log/audit-2026-12-07T09-05-03.007"),
        ("audit.json.log", "audit.json-2026-12-07T09-05-03.007.log"),
    ];
    for (path, want) in cases {
        assert_eq!(
            backup_name(Path::new(path), time),
            PathBuf::from(want),
            "{path}"
        );
    }
}

#[test]
fn time_from_name_of_names_only_backups_parse() {
    let cases = [
        (
            "audit-2026-12-07T09-05-03.007.log",
            ".log",
            Some("2026-12-07T09:05:03.007Z"),
        ),
        (
            "audit-2026-12-07T09-05-03.007.log.gz",
            ".log.gz",
            Some("2026-12-07T09:05:03.007Z"),
        ),
        ("audit-2026-12-07T09-05-03.007.log.gz", ".log", None),
        ("audit-2026-12-07T09:05:03.007.log", ".log", None),
        ("audit-2026-13-07T09-05-03.007.log", ".log", None),
        ("audit-2026-12-07T09-05-03.log", ".log", None),
        ("other-2026-12-07T09-05-03.007.log", ".log", None),
    ];
    for (name, ext, want) in cases {
        assert_eq!(time_from_name(name, "audit-", ext), want.map(at), "{name}");
    }
}

fn backup(name: &str, time: &str) -> Backup {
    Backup {
        name: name.into(),
        time: at(time),
    }
}

#[test]
fn plan_of_backups_removes_and_compresses_as_lumberjack() {
    let now = at("2026-12-10T00:00:00Z");
    // Newest first, as `backups` lists them; `b` is there compressed and not.
    let files = || {
        vec![
            backup("a.log", "2026-12-09T00:00:00Z"),
            backup("b.log.gz", "2026-12-08T00:00:00Z"),
            backup("b.log", "2026-12-08T00:00:00Z"),
            backup("c.log", "2026-12-05T00:00:00Z"),
            backup("d.log.gz", "2026-12-01T00:00:00Z"),
        ]
    };
    let s = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    type Case = (usize, u64, bool, Vec<String>, Vec<String>);
    #[rustfmt::skip]
    let cases: [Case; 5] = [
        (0, 0, false, s(&[]), s(&[])),
        (2, 0, false, s(&["c.log", "d.log.gz"]), s(&[])),
        (0, 3, false, s(&["c.log", "d.log.gz"]), s(&[])),
        (0, 0, true, s(&[]), s(&["a.log", "b.log", "c.log"])),
        (
            3,
            6,
            true,
            s(&["d.log.gz"]),
            s(&["a.log", "b.log", "c.log"]),
        ),
    ];
    for (max_backups, max_age, compress, remove, gzip) in cases {
        let got = plan(files(), max_backups, max_age, compress, now);
        assert_eq!(got, (remove, gzip), "{max_backups} {max_age} {compress}");
    }
}
