//! The container image's build context: `Dockerfile`'s build stage must receive every
//! path the build needs. No container engine runs here, so the check lays out exactly
//! the files the build stage's `COPY` lines name (parsed from the Dockerfile, with
//! `.dockerignore` applied as the engine applies it to the context) in a temporary
//! directory and resolves the crate graph there with `cargo metadata --locked --offline`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One `COPY` from the build context: sources (context-relative) and the destination.
#[derive(Debug, PartialEq)]
struct Copy {
    sources: Vec<String>,
    dest: String,
}

/// A stage of the Dockerfile: its `WORKDIR`, its context `COPY`s and its `RUN` lines.
#[derive(Debug, Default)]
struct Stage {
    workdir: String,
    copies: Vec<Copy>,
    runs: Vec<String>,
}

/// Logical instructions: comments dropped, `\` continuations joined.
fn instructions(dockerfile: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in dockerfile.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(body) = trimmed.strip_suffix('\\') {
            current.push_str(body);
            current.push(' ');
            continue;
        }
        current.push_str(trimmed);
        out.push(std::mem::take(&mut current));
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The arguments of a `COPY`, in shell or JSON form, flags removed; `None` for `--from`.
fn copy_arguments(rest: &str) -> Option<Vec<String>> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let mut flags = 0;
    while words.get(flags).is_some_and(|w| w.starts_with("--")) {
        let flag = words[flags];
        if flag.starts_with("--from=") {
            return None;
        }
        assert!(
            ["--chown=", "--chmod=", "--link"]
                .iter()
                .any(|f| flag.starts_with(f)),
            "COPY flag {flag} is not understood by this check: teach tests/container_image.rs"
        );
        flags += 1;
    }
    words.drain(..flags);
    let joined = words.join(" ");
    if joined.starts_with('[') {
        return Some(serde_json::from_str(&joined).expect("COPY in JSON form"));
    }
    Some(words.into_iter().map(str::to_string).collect())
}

fn parse_stages(dockerfile: &str) -> Vec<Stage> {
    let mut stages: Vec<Stage> = Vec::new();
    for instruction in instructions(dockerfile) {
        let (keyword, rest) = instruction.split_once(' ').unwrap_or((&instruction, ""));
        match keyword.to_ascii_uppercase().as_str() {
            "FROM" => stages.push(Stage {
                workdir: "/".into(),
                ..Stage::default()
            }),
            "WORKDIR" if !stages.is_empty() => {
                let stage = stages.last_mut().unwrap();
                stage.workdir = resolve(&stage.workdir, rest.trim());
            }
            "COPY" | "ADD" if !stages.is_empty() => {
                if let Some(mut args) = copy_arguments(rest) {
                    assert!(
                        args.len() >= 2,
                        "COPY needs a source and a destination: {instruction}"
                    );
                    let dest = args.pop().unwrap();
                    stages.last_mut().unwrap().copies.push(Copy {
                        sources: args,
                        dest,
                    });
                }
            }
            "RUN" if !stages.is_empty() => stages.last_mut().unwrap().runs.push(rest.to_string()),
            _ => {}
        }
    }
    stages
}

/// `path` resolved against the directory `base` (both absolute in the image).
fn resolve(base: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{base}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether `.dockerignore` keeps `path` (context-relative, `/`-separated) out of the
/// context: the last matching pattern wins, `!` re-includes, a pattern that matches a
/// directory excludes everything under it, `**` spans any number of components.
fn ignored(patterns: &[String], path: &str) -> bool {
    let components: Vec<&str> = path.split('/').collect();
    let mut verdict = false;
    for pattern in patterns {
        let (include, pattern) = match pattern.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, pattern.as_str()),
        };
        let pattern: Vec<&str> = pattern.trim_matches('/').split('/').collect();
        if (1..=components.len()).any(|n| matches(&pattern, &components[..n])) {
            verdict = !include;
        }
    }
    verdict
}

fn matches(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.split_first(), path.split_first()) {
        (None, None) => true,
        (Some((&"**", rest)), _) => {
            matches(rest, path) || (!path.is_empty() && matches(pattern, &path[1..]))
        }
        (Some((p, prest)), Some((c, crest))) => glob(p, c) && matches(prest, crest),
        _ => false,
    }
}

/// `*` and `?` within one path component.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.chars().next() {
        None => text.is_empty(),
        Some('*') => {
            let rest = &pattern[1..];
            text.char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .any(|i| glob(rest, &text[i..]))
        }
        Some(p) => {
            let mut chars = text.chars();
            match chars.next() {
                Some(c) if p == '?' || p == c => glob(&pattern[p.len_utf8()..], chars.as_str()),
                _ => false,
            }
        }
    }
}

fn dockerignore() -> Vec<String> {
    let text = std::fs::read_to_string(repo_root().join(".dockerignore"))
        .expect(".dockerignore beside the Dockerfile");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Copies `from` (context-relative `rel`) to `to` as the engine would, skipping what
/// `.dockerignore` excludes.
fn copy_tree(context: &Path, rel: &str, to: &Path, ignore: &[String]) {
    if ignored(ignore, rel) {
        return;
    }
    let from = context.join(rel);
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            copy_tree(context, &format!("{rel}/{name}"), &to.join(&name), ignore);
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, to).unwrap();
    }
}

/// Lays out the build stage's copies under a fresh directory standing for its WORKDIR.
fn lay_out(stage: &Stage, context: &Path, ignore: &[String]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for copy in &stage.copies {
        let dest = resolve(&stage.workdir, &copy.dest);
        let dest = dest
            .strip_prefix(&stage.workdir)
            .unwrap_or(&dest)
            .trim_start_matches('/');
        let into_dir = copy.dest.ends_with('/') || copy.sources.len() > 1;
        for source in &copy.sources {
            assert!(
                !source.contains(['*', '?', '[']),
                "COPY globs are not understood: {source}"
            );
            let source = source.trim_start_matches("./").trim_end_matches('/');
            assert!(
                context.join(source).exists(),
                "COPY names {source}, which is not in the repository"
            );
            let target = if into_dir && !context.join(source).is_dir() {
                dir.path()
                    .join(dest)
                    .join(Path::new(source).file_name().unwrap())
            } else {
                dir.path().join(dest)
            };
            copy_tree(context, source, &target, ignore);
        }
    }
    dir
}

fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc on PATH");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// Runs `cargo metadata --locked --offline` where the build stage's files were laid out;
/// `Err` carries cargo's own words (they name the missing path).
fn resolve_offline(dockerfile: &str) -> Result<(), String> {
    let stages = parse_stages(dockerfile);
    let stage = stages
        .iter()
        .find(|s| s.runs.iter().any(|r| r.contains("cargo build")))
        .expect("a build stage that runs cargo build");
    let dir = lay_out(stage, &repo_root(), &dockerignore());
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--locked",
            "--offline",
            "--format-version",
            "1",
            "--filter-platform",
        ])
        .arg(host_triple())
        .current_dir(dir.path())
        .output()
        .expect("cargo runs");
    if out.status.success() {
        return Ok(());
    }
    Err(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn dockerfile() -> String {
    std::fs::read_to_string(repo_root().join("Dockerfile")).unwrap()
}

#[test]
fn build_stage_copies_resolve_the_crate_graph_offline() {
    if let Err(cargo) = resolve_offline(&dockerfile()) {
        panic!(
            "the Dockerfile's build stage lacks a path the build needs; cargo metadata in a \
             directory holding exactly what its COPY lines name said:\n{cargo}"
        );
    }
}

#[test]
fn build_stage_without_vendor_copy_fails_naming_vendor() {
    let without: String = dockerfile()
        .lines()
        .filter(|l| !l.trim_start().starts_with("COPY vendor"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(without, dockerfile(), "the Dockerfile copies vendor/");
    let err = resolve_offline(&without).expect_err("the build needs vendor/etcd-client");
    assert!(
        err.contains("vendor/etcd-client"),
        "cargo names the missing path: {err}"
    );
}

#[test]
fn dockerignore_keeps_build_output_keys_and_data_out() {
    let ignore = dockerignore();
    for path in [
        "target/debug/crd-apiserver",
        "pki/dev/ca.key",
        "pki/serving.key",
        "data/store.redb",
        "x/y.redb",
        ".git/HEAD",
    ] {
        assert!(
            ignored(&ignore, path),
            "{path} must stay out of the build context"
        );
    }
    for path in [
        "src/main.rs",
        "vendor/etcd-client/build.rs",
        "Cargo.lock",
        "pki/README.md",
        "benches/throughput.rs",
    ] {
        assert!(
            !ignored(&ignore, path),
            "{path} must stay in the build context"
        );
    }
}

#[test]
fn parse_stages_reads_copies_workdir_and_runs() {
    let text = "# c\nARG X=1\nFROM rust AS build\nWORKDIR /src\nCOPY a b ./\nCOPY --chown=1:1 src ./src\n\
                RUN --mount=type=cache \\\n  cargo build\nFROM run\nCOPY --from=build /out/x /x\nCOPY [\"c\", \"/etc/c\"]\n";
    let stages = parse_stages(text);
    assert_eq!(stages.len(), 2);
    assert_eq!(stages[0].workdir, "/src");
    assert_eq!(
        stages[0].copies,
        vec![
            Copy {
                sources: vec!["a".into(), "b".into()],
                dest: "./".into()
            },
            Copy {
                sources: vec!["src".into()],
                dest: "./src".into()
            },
        ]
    );
    assert_eq!(
        stages[0].runs,
        vec!["--mount=type=cache  cargo build".to_string()]
    );
    assert_eq!(
        stages[1].copies,
        vec![Copy {
            sources: vec!["c".into()],
            dest: "/etc/c".into()
        }]
    );
}

#[test]
fn ignored_follows_dockerignore_matching() {
    let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let cases: &[(&[&str], &str, bool)] = &[
        (&["target"], "target", true),
        (&["target"], "target/a/b", true),
        (&["target"], "src/target", false),
        (&["**/*.redb"], "a.redb", true),
        (&["**/*.redb"], "a/b/c.redb", true),
        (&["pki/*.key"], "pki/a.key", true),
        (&["pki/*.key"], "pki/sub/a.key", false),
        (&["pki", "!pki/README.md"], "pki/README.md", false),
        (&["pki", "!pki/README.md"], "pki/a.key", true),
    ];
    for (patterns, path, want) in cases {
        assert_eq!(ignored(&p(patterns), path), *want, "{patterns:?} on {path}");
    }
}
