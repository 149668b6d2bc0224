#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;

use crate::cel::cost::call_cost;
use crate::cel::value::Value;

#[test]
fn authz_library_declares_kube_overloads_with_implementations() {
    let lib = super::library();
    let ids: HashSet<&str> = lib.decls.iter().map(|d| d.id).collect();
    assert_eq!(ids.len(), 15);
    for decl in &lib.decls {
        assert!(decl.member, "{}", decl.id);
        assert!(
            lib.impls.iter().any(|(id, _)| *id == decl.id),
            "{}",
            decl.id
        );
    }
}

#[test]
fn authz_call_costs_are_kubes() {
    let s = Value::string("x");
    let cases = [
        ("check", 350_000),
        ("path", 1),
        ("group", 1),
        ("resource", 1),
        ("allowed", 1),
        ("serviceAccount", 1),
    ];
    for (function, want) in cases {
        assert_eq!(
            call_cost(function, "", &[s.clone(), s.clone()], &s),
            want,
            "{function}"
        );
    }
    // kube's selectorCostEstimate of a 3-character selector: 10 + ceil(0.3) + ceil(1.5) × 50.
    let selector = Value::string("a=b");
    assert_eq!(
        call_cost("labelSelector", "", &[s.clone(), selector], &s),
        10 + 1 + 100
    );
}

/// kube's stored-expressions environment (CRD rules too) declares the library, so a
/// call on another type is a wrong overload, not an undeclared function.
#[test]
fn authz_functions_declared_in_stored_environment() {
    let env = crate::cel::env::stored();
    let ast = crate::cel::parse::parse("'x'.check('get')").unwrap();
    let err = crate::cel::check::check(ast, &env, &[]).unwrap_err();
    let want =
        "ERROR: <input>:1:10: found no matching overload for 'check' applied to 'string.(string)'";
    assert!(err.starts_with(want), "{err}");
}
