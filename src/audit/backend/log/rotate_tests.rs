#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::io::Read;
use std::os::unix::fs::PermissionsExt;

use flate2::read::GzDecoder;

use super::*;
use crate::audit::backend::testing::ticking;

const KIB: usize = 1024;

fn rotation(dir: &Path, max_backups: usize, compress: bool) -> Rotation {
    Rotation {
        path: dir.join("audit.log"),
        max_size_mb: 1,
        max_age_days: 0,
        max_backups,
        compress,
    }
}

/// A line of `len` bytes (newline included) made of `c`.
fn line(c: u8, len: usize) -> Vec<u8> {
    let mut line = vec![c; len - 1];
    line.push(b'\n');
    line
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    GzDecoder::new(File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn write_line_past_max_size_rotates_to_timestamped_backup() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Rotating::new(&rotation(dir.path(), 0, false), ticking());
    for c in [b'a', b'b', b'c', b'd'] {
        file.write_line(&line(c, 300 * KIB)).unwrap();
    }
    file.close().unwrap();
    assert_eq!(
        names(dir.path()),
        ["audit-2026-12-07T13-00-00.250.log", "audit.log"]
    );
    let backup = fs::read(dir.path().join("audit-2026-12-07T13-00-00.250.log")).unwrap();
    assert_eq!(
        backup,
        [
            line(b'a', 300 * KIB),
            line(b'b', 300 * KIB),
            line(b'c', 300 * KIB)
        ]
        .concat()
    );
    let current = fs::read(dir.path().join("audit.log")).unwrap();
    assert_eq!(current, line(b'd', 300 * KIB));
    let mode = fs::metadata(dir.path().join("audit.log"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn write_line_over_max_size_refused_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Rotating::new(&rotation(dir.path(), 0, false), ticking());
    let error = file.write_line(&line(b'x', 1024 * KIB + 1)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "write length 1048577 exceeds maximum file size 1048576"
    );
    file.write_line(b"small\n").unwrap();
    file.close().unwrap();
    assert_eq!(names(dir.path()), ["audit.log"]);
    assert_eq!(fs::read(dir.path().join("audit.log")).unwrap(), b"small\n");
}

#[test]
fn open_existing_file_counts_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.log");
    fs::write(&path, line(b'o', 700 * KIB)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let mut file = Rotating::new(&rotation(dir.path(), 0, false), ticking());
    file.write_line(&line(b'a', 200 * KIB)).unwrap(); // 900 KiB: appended
    file.write_line(&line(b'b', 200 * KIB)).unwrap(); // 1100 KiB: rotated first
    file.close().unwrap();
    let backup = dir.path().join("audit-2026-12-07T13-00-00.250.log");
    assert_eq!(
        fs::read(&backup).unwrap(),
        [line(b'o', 700 * KIB), line(b'a', 200 * KIB)].concat()
    );
    assert_eq!(fs::read(&path).unwrap(), line(b'b', 200 * KIB));
    // The new file takes the old one's mode, as lumberjack's does.
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn rotations_past_max_backups_keep_newest_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Rotating::new(&rotation(dir.path(), 2, true), ticking());
    // Five files of one 600 KiB line each: four rotations.
    for c in [b'a', b'b', b'c', b'd', b'e'] {
        file.write_line(&line(c, 600 * KIB)).unwrap();
    }
    file.close().unwrap();
    assert_eq!(
        names(dir.path()),
        [
            "audit-2026-12-07T13-00-05.250.log.gz",
            "audit-2026-12-07T13-00-07.250.log.gz",
            "audit.log"
        ]
    );
    // Clock readings: the first open's mill run, then per rotation a backup name and a
    // mill run: backups at :01 (a), :03 (b), :05 (c), :07 (d).
    let newest = dir.path().join("audit-2026-12-07T13-00-07.250.log.gz");
    assert_eq!(gunzip(&newest), line(b'd', 600 * KIB));
    let older = dir.path().join("audit-2026-12-07T13-00-05.250.log.gz");
    assert_eq!(gunzip(&older), line(b'c', 600 * KIB));
    assert_eq!(
        fs::metadata(&newest).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::read(dir.path().join("audit.log")).unwrap(),
        line(b'e', 600 * KIB)
    );
}

#[test]
fn rotation_with_max_age_removes_backups_named_older() {
    let dir = tempfile::tempdir().unwrap();
    // The clock reads 2026-12-07T13:00; backups of 2026-12-01 and 2026-12-06 are there.
    let old = dir.path().join("audit-2026-12-01T10-00-00.000.log");
    let recent = dir.path().join("audit-2026-12-06T10-00-00.000.log");
    let unrelated = dir.path().join("other-2026-12-01T10-00-00.000.log");
    for path in [&old, &recent, &unrelated] {
        fs::write(path, b"x\n").unwrap();
    }
    let mut settings = rotation(dir.path(), 0, false);
    settings.max_age_days = 3;
    let mut file = Rotating::new(&settings, ticking());
    file.write_line(b"first\n").unwrap();
    file.close().unwrap();
    assert_eq!(
        names(dir.path()),
        [
            "audit-2026-12-06T10-00-00.000.log",
            "audit.log",
            "other-2026-12-01T10-00-00.000.log"
        ]
    );
}
