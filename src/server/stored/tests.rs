use serde_json::json;

use super::*;

fn resource(versions: &[(&str, bool, bool)]) -> Arc<ServedResource> {
    let versions: Vec<_> = versions
        .iter()
        .map(|(name, served, storage)| {
            json!({"name": name, "served": served, "storage": storage,
                   "schema": {"openAPIV3Schema": {"type": "object"}}})
        })
        .collect();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
                 "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
                 "versions": versions}
    });
    let crd = serde_json::from_value(crd).expect("a CRD");
    let catalog = Catalog::build(&[crd]).expect("catalog");
    catalog.resources()[0].clone()
}

#[test]
fn unmigrated_versions_not_in_spec_refused_unserved_kept() {
    let counts = |pairs: &[(&str, u64)]| -> Counts {
        pairs.iter().map(|(v, n)| (v.to_string(), *n)).collect()
    };
    let two = resource(&[("v1", false, false), ("v2", true, true)]);
    let only_v2 = resource(&[("v2", true, true)]);
    type Case<'a> = (&'a Arc<ServedResource>, Counts, Vec<(&'a str, u64)>);
    #[rustfmt::skip]
    let cases: [Case; 5] = [
        (&only_v2, counts(&[("v2", 4)]), vec![]),
        (&only_v2, counts(&[]), vec![]),
        (&only_v2, counts(&[("v1", 3), ("v2", 1)]), vec![("v1", 3)]),
        (&only_v2, counts(&[("v1", 1), ("", 2)]), vec![("", 2), ("v1", 1)]),
        // Kept with served: false: still defined, not refused.
        (&two, counts(&[("v1", 3), ("v2", 1)]), vec![]),
    ];
    for (resource, counts, want) in cases {
        let got: Vec<(String, u64)> = unmigrated(resource, &counts)
            .into_iter()
            .map(|u| (u.version, u.objects))
            .collect();
        let want: Vec<(String, u64)> = want.iter().map(|(v, n)| (v.to_string(), *n)).collect();
        assert_eq!(got, want, "{counts:?}");
    }
}

#[test]
fn refusal_names_resource_version_count_and_spec_versions() {
    let found = unmigrated(&resource(&[("v2", true, true)]), &[("v1".into(), 3)].into());
    assert_eq!(
        refusal(&found).lines().nth(1),
        Some(
            r#"  crontabs.stable.example.com: 3 objects stored at version "v1", which spec.versions no longer lists (spec.versions: v2)"#
        )
    );
}
