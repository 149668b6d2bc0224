//! Upstream's schema-change tables (structured-merge-diff `merge/schema_change_test.go`),
//! ported as data in `schema_change.yaml` and run like the other updater cases, with a
//! `change_schema` operation (upstream's `ChangeParser`): later operations see the live
//! object and every manager's set through the new type.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{SameType, State, expected_managers, run_op};
use crate::fieldmanager::fieldpath::ManagedFields;
use crate::fieldmanager::merge::Updater;
use crate::fieldmanager::typed::tests::obj;
use crate::fieldmanager::typed::{self, TypeRef};

const CASES: &str = include_str!("schema_change.yaml");

fn run_case(types: &BTreeMap<String, TypeRef>, case: &Value) -> Result<(), String> {
    let mut ty = &types[case["schema"].as_str().unwrap()];
    let mut s = State {
        live: Value::Null,
        managers: ManagedFields::new(),
    };
    for (i, op) in case["ops"].as_array().unwrap().iter().enumerate() {
        if op["op"] == "change_schema" {
            ty = &types[op["schema"].as_str().unwrap()];
            typed::validate(ty, &s.live, false)
                .map_err(|e| format!("failed operation {i}: live invalid: {e}"))?;
            continue;
        }
        let converter = SameType {
            ty: ty.clone(),
            served: Default::default(),
        };
        run_op(&Updater::new(&converter), &converter, &mut s, op)
            .map_err(|e| format!("failed operation {i}: {e}"))?;
    }
    let want = obj(&case["object"]);
    if want != s.live {
        return Err(format!("live {}, want {want}", s.live));
    }
    let want = expected_managers(&case["managed"]);
    let diff = s.managers.difference(&want);
    if !diff.is_empty() || s.managers.len() != want.len() {
        return Err(format!("managers:\n{}want:\n{want}", s.managers));
    }
    Ok(())
}

#[test]
fn updater_schema_change_cases_give_upstream_objects_and_managers() {
    let doc: Value = serde_saphyr::from_str(CASES).unwrap();
    let types: BTreeMap<String, TypeRef> = doc["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let schema = crate::schema::Schema::parse(v);
            (k.clone(), crate::schema::typed::schema_type(&schema))
        })
        .collect();
    let cases = doc["cases"].as_array().unwrap();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let name = case["name"].as_str().unwrap();
            run_case(&types, case).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(cases.len(), 10);
}
