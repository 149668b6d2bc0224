//! Table tests of macro expansion: the tree cel-go builds for each macro kube's
//! environment has, and its errors for bad macro arguments.

use super::tests::check;

#[test]
fn parse_macro_expands_as_cel_go() {
    check(&[
        ("has(a.b)", "has(a@4.b)@3"),
        ("has(a.b.c)", "has(a@4.b@5.c)@3"),
        (
            "x.all(y, y > 0)",
            "fold(y, x@0, @result, true@5, @not_strictly_false(@result@5)@5, _&&_(@result@5, _>_(y@9, 0@13)@11)@5, @result@5)@5",
        ),
        (
            "x.exists(y, y)",
            "fold(y, x@0, @result, false@8, @not_strictly_false(!_(@result@8)@8)@8, _||_(@result@8, y@12)@8, @result@8)@8",
        ),
        (
            "x.exists_one(y, y)",
            "fold(y, x@0, @result, 0@12, true@12, _?_:_(y@16, _+_(@result@12, 1@12)@12, @result@12)@12, _==_(@result@12, 1@12)@12)@12",
        ),
        (
            "x.map(y, y + 1)",
            "fold(y, x@0, @result, []@5, true@5, _+_(@result@5, [_+_(y@9, 1@13)@11]@5)@5, @result@5)@5",
        ),
        (
            "x.map(y, y > 0, y)",
            "fold(y, x@0, @result, []@5, true@5, _?_:_(_>_(y@9, 0@13)@11, _+_(@result@5, [y@16]@5)@5, @result@5)@5, @result@5)@5",
        ),
        (
            "x.filter(y, y)",
            "fold(y, x@0, @result, []@8, true@8, _?_:_(y@12, _+_(@result@8, [y@9]@8)@8, @result@8)@8, @result@8)@8",
        ),
        (
            "x.all(k, v, k == v)",
            "fold(k,v, x@0, @result, true@5, @not_strictly_false(@result@5)@5, _&&_(@result@5, _==_(k@12, v@17)@14)@5, @result@5)@5",
        ),
        (
            "x.exists(k, v, v)",
            "fold(k,v, x@0, @result, false@8, @not_strictly_false(!_(@result@8)@8)@8, _||_(@result@8, v@15)@8, @result@8)@8",
        ),
        (
            "x.existsOne(k, v, v)",
            "fold(k,v, x@0, @result, 0@11, true@11, _?_:_(v@18, _+_(@result@11, 1@11)@11, @result@11)@11, _==_(@result@11, 1@11)@11)@11",
        ),
        (
            "x.exists_one(k, v, v)",
            "fold(k,v, x@0, @result, 0@12, true@12, _?_:_(v@19, _+_(@result@12, 1@12)@12, @result@12)@12, _==_(@result@12, 1@12)@12)@12",
        ),
        (
            "x.transformList(i, v, v)",
            "fold(i,v, x@0, @result, []@15, true@15, _+_(@result@15, [v@22]@15)@15, @result@15)@15",
        ),
        (
            "x.transformList(i, v, i > 0, v)",
            "fold(i,v, x@0, @result, []@15, true@15, _?_:_(_>_(i@22, 0@26)@24, _+_(@result@15, [v@29]@15)@15, @result@15)@15, @result@15)@15",
        ),
        (
            "x.transformMap(k, v, v)",
            "fold(k,v, x@0, @result, {}@14, true@14, cel.@mapInsert(@result@14, k@14, v@21)@14, @result@14)@14",
        ),
        (
            r#"x.transformMap(k, v, k != "a", v)"#,
            r#"fold(k,v, x@0, @result, {}@14, true@14, _?_:_(_!=_(k@21, "a"@26)@23, cel.@mapInsert(@result@14, k@14, v@31)@14, @result@14)@14, @result@14)@14"#,
        ),
        (
            "x.transformMapEntry(k, v, {k: v})",
            "fold(k,v, x@0, @result, {}@19, true@19, cel.@mapInsert(@result@19, {k@27:@28 v@30}@26)@19, @result@19)@19",
        ),
        (
            "x.transformMapEntry(k, v, true, {v: k})",
            "fold(k,v, x@0, @result, {}@19, true@19, _?_:_(true@26, cel.@mapInsert(@result@19, {v@33:@34 k@36}@32)@19, @result@19)@19, @result@19)@19",
        ),
        (
            "a.optMap(x, x + 1)",
            "_?_:_(a@0.hasValue()@8, optional.of(fold(#unused, []@8, x, a@0.value()@8, false@8, x@8, _+_(x@12, 1@16)@14)@8)@8, optional.none()@8)@8",
        ),
        (
            "a.b.optMap(x, x)",
            "fold(#unused, []@10, @target, a@0.b@1, false@10, @target@10, _?_:_(@target@10.hasValue()@10, optional.of(fold(#unused, []@10, x, @target@10.value()@10, false@10, x@10, x@14)@10)@10, optional.none()@10)@10)@10",
        ),
        (
            "a.optFlatMap(x, optional.of(x))",
            "_?_:_(a@0.hasValue()@12, fold(#unused, []@12, x, a@0.value()@12, false@12, x@12, optional@16.of(x@28)@27)@12, optional.none()@12)@12",
        ),
        (
            "f(a).optFlatMap(x, x)",
            "fold(#unused, []@15, @target, f(a@2)@1, false@15, @target@15, _?_:_(@target@15.hasValue()@15, fold(#unused, []@15, x, @target@15.value()@15, false@15, x@15, x@19)@15, optional.none()@15)@15)@15",
        ),
        (
            "x.sortBy(e, -e)",
            "fold(#unused, []@8, @__sortBy_input__, x@0, false@8, @__sortBy_input__@8, @__sortBy_input__@8.@sortByAssociatedKeys(fold(e, @__sortBy_input__@8, @result, []@8, true@8, _+_(@result@8, [-_(e@13)@12]@8)@8, @result@8)@8)@8)@8",
        ),
        (
            "a.b.sortBy(e, e.c)",
            "fold(#unused, []@10, @__sortBy_input__, a@0.b@1, false@10, @__sortBy_input__@10, @__sortBy_input__@10.@sortByAssociatedKeys(fold(e, @__sortBy_input__@10, @result, []@10, true@10, _+_(@result@10, [e@14.c@15]@10)@10, @result@10)@10)@10)@10",
        ),
        (
            "[3, 1].sortBy(e, e)",
            "fold(#unused, []@13, @__sortBy_input__, [3@1, 1@4]@0, false@13, @__sortBy_input__@13, @__sortBy_input__@13.@sortByAssociatedKeys(fold(e, @__sortBy_input__@13, @result, []@13, true@13, _+_(@result@13, [e@17]@13)@13, @result@13)@13)@13)@13",
        ),
        (
            "x.all(y, y.exists(z, z))",
            "fold(y, x@0, @result, true@5, @not_strictly_false(@result@5)@5, _&&_(@result@5, fold(z, y@9, @result, false@17, @not_strictly_false(!_(@result@17)@17)@17, _||_(@result@17, z@21)@17, @result@17)@17)@5, @result@5)@5",
        ),
        (
            "[x].map(y, [y].filter(z, z))",
            "fold(y, [x@1]@0, @result, []@7, true@7, _+_(@result@7, [fold(z, [y@12]@11, @result, []@21, true@21, _?_:_(z@25, _+_(@result@21, [z@22]@21)@21, @result@21)@21, @result@21)@21]@7)@7, @result@7)@7",
        ),
    ]);
}

#[test]
fn parse_macro_bad_argument_reports_cel_go_error() {
    check(&[
        (
            "has(a)",
            r#"ERROR: <input>:1:5: invalid argument to has() macro
 | has(a)
 | ....^"#,
        ),
        (
            "has(1)",
            r#"ERROR: <input>:1:5: invalid argument to has() macro
 | has(1)
 | ....^"#,
        ),
        (
            "has(a.?b)",
            r#"ERROR: <input>:1:6: invalid argument to has() macro
 | has(a.?b)
 | .....^"#,
        ),
        (
            "x.all(1, y)",
            r#"ERROR: <input>:1:7: argument must be a simple name
 | x.all(1, y)
 | ......^"#,
        ),
        (
            "x.all(__result__, true)",
            r#"ERROR: <input>:1:7: iteration variable overwrites accumulator variable
 | x.all(__result__, true)
 | ......^"#,
        ),
        (
            "x.exists(y.z, true)",
            r#"ERROR: <input>:1:11: argument must be a simple name
 | x.exists(y.z, true)
 | ..........^"#,
        ),
        (
            "x.exists_one(1, y)",
            r#"ERROR: <input>:1:14: argument must be a simple name
 | x.exists_one(1, y)
 | .............^"#,
        ),
        (
            "x.map(1, y)",
            r#"ERROR: <input>:1:7: argument is not an identifier
 | x.map(1, y)
 | ......^"#,
        ),
        (
            "x.map(y.z, w, w)",
            r#"ERROR: <input>:1:8: argument is not an identifier
 | x.map(y.z, w, w)
 | .......^"#,
        ),
        (
            "x.filter(1, y)",
            r#"ERROR: <input>:1:10: argument is not an identifier
 | x.filter(1, y)
 | .........^"#,
        ),
        (
            "x.filter(__result__, y)",
            r#"ERROR: <input>:1:10: iteration variable overwrites accumulator variable
 | x.filter(__result__, y)
 | .........^"#,
        ),
        (
            "x.all(1, v, true)",
            r#"ERROR: <input>:1:7: argument must be a simple name
 | x.all(1, v, true)
 | ......^"#,
        ),
        (
            "x.all(k, 2, true)",
            r#"ERROR: <input>:1:10: argument must be a simple name
 | x.all(k, 2, true)
 | .........^"#,
        ),
        (
            "x.all(k, k, true)",
            r#"ERROR: <input>:1:10: duplicate variable name: k
 | x.all(k, k, true)
 | .........^"#,
        ),
        (
            "x.transformList(__result__, v, v)",
            r#"ERROR: <input>:1:17: iteration variable overwrites accumulator variable
 | x.transformList(__result__, v, v)
 | ................^"#,
        ),
        (
            "x.transformMap(k, __result__, v)",
            r#"ERROR: <input>:1:19: iteration variable overwrites accumulator variable
 | x.transformMap(k, __result__, v)
 | ..................^"#,
        ),
        (
            "a.optMap(1, x)",
            r#"ERROR: <input>:1:10: optMap() variable name must be a simple identifier
 | a.optMap(1, x)
 | .........^"#,
        ),
        (
            "a.optFlatMap(x.y, x)",
            r#"ERROR: <input>:1:15: optFlatMap() variable name must be a simple identifier
 | a.optFlatMap(x.y, x)
 | ..............^"#,
        ),
        (
            "1.sortBy(e, e)",
            r#"ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression
 | 1.sortBy(e, e)
 | ^"#,
        ),
        (
            "{}.sortBy(e, e)",
            r#"ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression
 | {}.sortBy(e, e)
 | ^"#,
        ),
        (
            "x.sortBy(1, e)",
            r#"ERROR: <input>:1:10: argument is not an identifier
 | x.sortBy(1, e)
 | .........^"#,
        ),
        (
            "[1].all(1, x) + [2].map(2, y)",
            r#"ERROR: <input>:1:9: argument must be a simple name
 | [1].all(1, x) + [2].map(2, y)
 | ........^
ERROR: <input>:1:25: argument is not an identifier
 | [1].all(1, x) + [2].map(2, y)
 | ........................^"#,
        ),
        (
            "x.map(y, z.all(1, w))",
            r#"ERROR: <input>:1:16: argument must be a simple name
 | x.map(y, z.all(1, w))
 | ...............^"#,
        ),
    ]);
}
