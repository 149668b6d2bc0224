//! The files of `src/` the layering check reads: the modules `lib.rs` declares, and
//! every source file but `lib.rs`, `main.rs` and test code, with its top-level module.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::lex::{Token, tokens};
use crate::parse::test_module_files;

/// A non-test source file of a top-level module.
pub(crate) struct SourceFile {
    /// Relative to `src/`.
    pub(crate) path: PathBuf,
    /// The top-level module it belongs to.
    pub(crate) module: String,
    /// How many module levels below the crate root its items are (`src/x.rs` and
    /// `src/x/mod.rs`: 1).
    pub(crate) depth: usize,
}

pub(crate) fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

pub(crate) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The names of `src/lib.rs`'s `mod` declarations.
pub(crate) fn declared_modules(lib_rs: &str) -> BTreeSet<String> {
    let tokens = tokens(lib_rs);
    tokens
        .windows(3)
        .filter_map(|w| match w {
            [
                (_, Token::Ident(m)),
                (_, Token::Ident(name)),
                (_, Token::Punct(';')),
            ] if m == "mod" => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// Every `.rs` file under `src/` but `lib.rs`, `main.rs` and test code.
pub(crate) fn source_files(src: &Path) -> std::io::Result<Vec<SourceFile>> {
    let mut all = Vec::new();
    collect(src, Path::new(""), &mut all)?;
    all.sort();
    // Files declared by `#[cfg(test)] mod x;` (and what lies under their folder).
    let mut test_files = BTreeSet::new();
    let mut test_dirs = Vec::new();
    for path in &all {
        let dir = path.parent().unwrap_or(Path::new(""));
        let own_dir = module_dir(path);
        for (name, attr_path) in test_module_files(&read(&src.join(path))) {
            let candidates = match attr_path {
                Some(p) => vec![dir.join(p)],
                None => vec![
                    own_dir.join(format!("{name}.rs")),
                    own_dir.join(&name).join("mod.rs"),
                ],
            };
            for file in candidates {
                test_dirs.push(module_dir(&file));
                test_files.insert(file);
            }
        }
    }
    Ok(all
        .into_iter()
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let top = path.components().count() == 1;
            !(top && (name == "lib.rs" || name == "main.rs"))
                && name != "tests.rs"
                && !path.components().any(|c| c.as_os_str() == "tests")
                && !test_files.contains(path)
                && !test_dirs.iter().any(|d| path.starts_with(d))
        })
        .filter_map(|path| {
            let first = path.components().next()?.as_os_str().to_str()?.to_owned();
            let module = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
            let depth = module_dir(&path).components().count();
            Some(SourceFile {
                path,
                module,
                depth,
            })
        })
        .collect())
}

/// The folder a file's child modules live in: `a/mod.rs` → `a`, `a/b.rs` → `a/b`.
fn module_dir(path: &Path) -> PathBuf {
    let parent = path.parent().unwrap_or(Path::new(""));
    match path.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs") => parent.to_path_buf(),
        Some(name) => parent.join(name.strip_suffix(".rs").unwrap_or(name)),
        None => parent.to_path_buf(),
    }
}

fn collect(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let path = rel.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[test]
fn declared_modules_of_lib_rs_are_its_mod_lines() {
    let lib =
        "//! map: mod fake;\npub mod a;\nmod b;\npub(crate) mod c;\n#[cfg(test)]\nmod d { }\n";
    let want: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(declared_modules(lib), want);
}

#[test]
fn module_dir_of_files_is_where_their_children_live() {
    let cases = [
        ("a/mod.rs", "a"),
        ("a/b.rs", "a/b"),
        ("metrics.rs", "metrics"),
        ("a/b/mod.rs", "a/b"),
    ];
    for (file, want) in cases {
        assert_eq!(module_dir(Path::new(file)), Path::new(want), "{file}");
    }
}
