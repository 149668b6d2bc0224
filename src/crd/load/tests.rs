//! Table tests for loading manifests: document splitting, lists, JSON streams, and the
//! messages for wrong kinds, unknown fields, type errors and bad files.

use super::*;

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true, default: {a: 1}}
";

fn sources(text: &str) -> Vec<String> {
    load_str("f.yaml", text)
        .unwrap()
        .into_iter()
        .map(|c| c.source)
        .collect()
}

fn problems(text: &str) -> Vec<String> {
    load_str("f.yaml", text)
        .unwrap_err()
        .problems
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn load_str_documents_numbered_as_split() {
    let widgets = CRD.replace("crontabs", "widgets");
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}",
        CRD.lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>()
            .replacen("  apiVersion", "- apiVersion", 1)
    );
    let json =
        serde_json::to_string(&serde_saphyr::from_str::<serde_json::Value>(CRD).unwrap()).unwrap();
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("single", CRD.to_string(), vec!["f.yaml (document 1)"]),
        (
            "leading separator",
            format!("---\n{CRD}"),
            vec!["f.yaml (document 1)"],
        ),
        (
            "empty and comment documents skipped",
            format!("# c\n---\n{CRD}---\n---\n\n---\n{widgets}"),
            vec!["f.yaml (document 2)", "f.yaml (document 4)"],
        ),
        (
            "separator with comment",
            format!("{CRD}--- # next\n{widgets}"),
            vec!["f.yaml (document 1)", "f.yaml (document 2)"],
        ),
        ("list items", list, vec!["f.yaml (document 1, items[0])"]),
        (
            "json stream",
            format!("{json}\n{json}"),
            vec!["f.yaml (document 1)", "f.yaml (document 2)"],
        ),
        ("empty file", String::new(), vec![]),
    ];
    for (name, text, want) in cases {
        assert_eq!(sources(&text), want, "case {name}");
    }
}

#[test]
fn load_str_bad_documents_report_file_document_name_and_field() {
    let cases: Vec<(&str, String, Vec<String>)> = vec![
        ("wrong kind", format!("{CRD}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm}}\n"),
         vec![r#"f.yaml (document 2) cm: expected apiVersion "apiextensions.k8s.io/v1" kind "CustomResourceDefinition", found apiVersion "v1" kind "ConfigMap""#.into()]),
        ("v1beta1", CRD.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"),
         vec![r#"f.yaml (document 1) crontabs.stable.example.com: expected apiVersion "apiextensions.k8s.io/v1" kind "CustomResourceDefinition", found apiVersion "apiextensions.k8s.io/v1beta1" kind "CustomResourceDefinition" (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22; use apiextensions.k8s.io/v1)"#.into()]),
        ("not an object", "- a\n- b\n".into(), vec!["f.yaml (document 1): expected an object, found an array".into()]),
        ("unknown fields", CRD.replace("served: true", "served: true\n      servd: true").replace("scope:", "scop: x\n  scope:"),
         vec![
             r#"f.yaml (document 1) crontabs.stable.example.com: spec.scop: unknown field "spec.scop""#.into(),
             r#"f.yaml (document 1) crontabs.stable.example.com: spec.versions[0].servd: unknown field "spec.versions[0].servd""#.into(),
         ]),
        ("type error", CRD.replace("served: true", "served: maybe"),
         vec![r#"f.yaml (document 1) crontabs.stable.example.com: spec.versions[0].served: invalid type: string "maybe", expected a boolean"#.into()]),
        ("yaml syntax error has file line", format!("{CRD}---\nkind: [\n"),
         vec!["f.yaml (document 2): invalid YAML: unclosed bracket '[' at line 19, column 7".into()]),
        ("duplicate key", format!("{CRD}kind: again\n"),
         vec!["f.yaml (document 1): invalid YAML: duplicate mapping key: kind, set DuplicateKeyPolicy in Options if acceptable at line 18, column 1".into()]),
        ("bad separator", format!("{CRD}--- x: 1\n"),
         vec!["f.yaml (document 2): invalid YAML document separator at line 18: x: 1".into()]),
        ("list of wrong kinds", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod}\n".into(),
         vec![r#"f.yaml (document 1, items[0]): expected apiVersion "apiextensions.k8s.io/v1" kind "CustomResourceDefinition", found apiVersion "v1" kind "Pod""#.into()]),
    ];
    for (name, text, want) in cases {
        assert_eq!(problems(&text), want, "case {name}");
    }
}

#[test]
fn load_str_broken_json_stream_reports_invalid_json_after_good_documents() {
    let json =
        serde_json::to_string(&serde_saphyr::from_str::<serde_json::Value>(CRD).unwrap()).unwrap();
    let text = format!("{json}\n{{\"kind\": ");
    assert_eq!(
        problems(&text),
        ["f.yaml (document 2): invalid JSON: EOF while parsing a value at line 2 column 9"]
    );
}

#[test]
fn load_paths_directory_sorted_non_recursive_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("b.yml", &CRD.replace("crontabs", "widgets"));
    write("a.yaml", CRD);
    write("notes.txt", "not a manifest");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/c.yaml"), "kind: Broken").unwrap();
    let crds = load_paths(&[dir.path().to_path_buf()]).unwrap();
    let names: Vec<&str> = crds
        .iter()
        .map(|c| c.crd.spec.names.plural.as_str())
        .collect();
    assert_eq!(names, ["crontabs", "widgets"]);
    assert!(
        crds[0].source.ends_with("a.yaml (document 1)"),
        "{}",
        crds[0].source
    );
}

#[test]
fn load_paths_bad_files_all_reported() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.yaml");
    std::fs::write(&big, vec![b'#'; (MAX_FILE_BYTES + 1) as usize]).unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "apiVersion: v1\nkind: Pod\n").unwrap();
    let binary = dir.path().join("binary.yaml");
    std::fs::write(&binary, [b'a', 0xff, b'\n']).unwrap();
    let missing = dir.path().join("missing.yaml");
    let empty_dir = dir.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let err = load_paths(&[
        big.clone(),
        bad.clone(),
        binary.clone(),
        missing.clone(),
        empty_dir.clone(),
    ])
    .unwrap_err();
    let want = [
        format!(
            "{}: file is larger than the limit of 8388608 bytes",
            big.display()
        ),
        format!(
            r#"{} (document 1): expected apiVersion "apiextensions.k8s.io/v1" kind "CustomResourceDefinition", found apiVersion "v1" kind "Pod""#,
            bad.display()
        ),
        format!("{}: file is not valid UTF-8", binary.display()),
        format!(
            "{}: the path {:?} does not exist",
            missing.display(),
            missing.display().to_string()
        ),
        format!(
            "{}: no manifests found: recognized file extensions are [.json .yaml .yml]",
            empty_dir.display()
        ),
    ];
    assert_eq!(err.to_string(), want.join("\n"));
}
