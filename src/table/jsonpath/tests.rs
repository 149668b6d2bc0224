//! Table tests for the JSONPath parser and evaluator, many taken from client-go's own tests.

use serde_json::{Value, json};

use super::{EvalError, JsonPath, ParseError};

/// What client-go's `Execute` prints (values of a result list space-joined), except that JSON
/// null prints as the printer-column `<no value>`.
fn run(template: &str, data: &Value) -> Result<String, EvalError> {
    let path = JsonPath::parse(template).unwrap();
    let results = path.find_results(data)?;
    Ok(results
        .iter()
        .map(|list| {
            let printed: Vec<String> = list.iter().map(|item| item.print()).collect();
            printed.join(" ")
        })
        .collect())
}

fn points() -> Value {
    json!([
        {"id": "i1", "x": 4, "y": -5},
        {"id": "i2", "x": -2, "y": -5, "z": 1},
        {"id": "i3", "x": 8, "y": 3},
        {"id": "i4", "x": -6, "y": -1},
        {"id": "i5", "x": 0, "y": 2, "z": 1},
        {"id": "i6", "x": 1, "y": 4},
        {"id": "i7", "x": null, "y": 4}
    ])
}

fn nodes() -> Value {
    json!({
        "kind": "List",
        "items": [
            {"kind": "None", "metadata": {"name": "127.0.0.1",
                "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
             "status": {"capacity": {"cpu": "4"}, "ready": true,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
            {"kind": "None", "metadata": {"name": "127.0.0.2",
                "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
             "status": {"capacity": {"cpu": "8"}, "ready": false,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                              {"type": "another", "address": "127.0.0.3"}]}}
        ],
        "users": [
            {"name": "myself", "user": {}},
            {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
        ]
    })
}

#[test]
fn parse_invalid_templates_fail_with_client_go_messages() {
    let cases: &[(&str, &str, ParseError)] = &[
        ("unclosed action", "{.hello", ParseError::UnclosedAction),
        (
            "unrecognized character",
            "{*}",
            ParseError::UnrecognizedCharacter("U+002A '*'".to_owned()),
        ),
        (
            "tab is unprintable",
            "{\t}",
            ParseError::UnrecognizedCharacter("U+0009".to_owned()),
        ),
        (
            "invalid number",
            "{+12.3.0}",
            ParseError::InvalidNumber("+12.3.0".to_owned()),
        ),
        ("unterminated array", "{[1}", ParseError::UnterminatedArray),
        (
            "invalid array index",
            "{[a]}",
            ParseError::InvalidArrayIndex("a".to_owned()),
        ),
        (
            "index not a number",
            "{[-]}",
            ParseError::ArrayIndexNotNumber("-".to_owned()),
        ),
        (
            "unterminated filter",
            "{[?(.price]}",
            ParseError::UnterminatedFilter,
        ),
        (
            "filter without bracket",
            "{[?(@.a)x}",
            ParseError::UnclosedFilter,
        ),
        (
            "unterminated quote",
            "{\"abc}",
            ParseError::UnterminatedQuote,
        ),
        (
            "bad escape",
            r#"{"\q"}"#,
            ParseError::InvalidQuotedString(r#""\q""#.to_owned()),
        ),
        (
            "multiple recursive",
            "{........}",
            ParseError::MultipleRecursiveDescent,
        ),
        ("newline in action", "{.a\n}", ParseError::UnclosedAction),
        (
            "malformed escapes",
            r"{\\\}",
            ParseError::UnrecognizedCharacter(r"U+005C '\'".to_owned()),
        ),
    ];
    for (name, template, want) in cases {
        assert_eq!(
            JsonPath::parse(template).err().as_ref(),
            Some(want),
            "case {name}"
        );
    }
}

#[test]
fn parse_valid_templates_succeed() {
    let cases = [
        "hello jsonpath",
        "{.status.conditions[?(@.type==\"Ready\")].status}",
        "{[?(@.status.nodeInfo.osImage == \"(\\\"\\\")\")]}",
        "{[?(@.test == \"())(\")]}",
        "{[?(@.a == '\\\\\\'')]}",
        "{['bicycle.price', 3, 'book.price']}",
        "{...Price}",
        "{range .items}{.name},{end}",
        "{[-5:]}",
        "{.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied}",
    ];
    for template in cases {
        assert!(JsonPath::parse(template).is_ok(), "template {template}");
    }
}

#[test]
fn find_results_field_index_wildcard_recursive_evaluate() {
    let spec = json!({
        "spec": {"cronSpec": "* * * * */5", "replicas": 3, "ratio": 0.5, "big": 1e6,
                 "suspend": false, "list": ["a", "b", "c", "d"], "empty": [],
                 "map": {"b": 2, "a": "x<y"}, "nothing": null,
                 "dotted.key": "dk", "deep": {"name": "inner", "more": [{"name": "leaf"}]}},
        "metadata": {"name": "top"}
    });
    let cases: &[(&str, &str, &str)] = &[
        ("field", "{.spec.cronSpec}", "* * * * */5"),
        ("integer", "{.spec.replicas}", "3"),
        ("float", "{.spec.ratio}", "0.5"),
        ("go float formatting", "{.spec.big}", "1e+06"),
        ("bool", "{.spec.suspend}", "false"),
        ("map is go json", "{.spec.map}", r#"{"a":"x\u003cy","b":2}"#),
        ("array is go json", "{.spec.list}", r#"["a","b","c","d"]"#),
        ("null", "{.spec.nothing}", "<no value>"),
        ("missing key is empty", "{.spec.absent}", ""),
        ("missing parent is empty", "{.nope.absent}", ""),
        ("field through null is empty", "{.spec.nothing.x}", ""),
        ("text around", "x-{.spec.replicas}-y", "x-3-y"),
        ("index", "{.spec.list[1]}", "b"),
        ("negative index", "{.spec.list[-1]}", "d"),
        ("slice", "{.spec.list[0:2]}", "a b"),
        ("slice open end", "{.spec.list[2:]}", "c d"),
        ("slice negative", "{.spec.list[-2:]}", "c d"),
        ("slice step", "{.spec.list[0:4:2]}", "a c"),
        ("empty slice", "{.spec.list[1:1]}", ""),
        ("index on empty array errors", "{.spec.empty[0]}", "ERR"),
        ("index out of range errors", "{.spec.list[9]}", "ERR"),
        ("index on map errors", "{.spec.map[0]}", "ERR"),
        ("index on null skipped", "{.spec.nothing[0]}", ""),
        ("zero step errors", "{.spec.list[0:2:0]}", "ERR"),
        ("wildcard array", "{.spec.list[*]}", "a b c d"),
        ("wildcard map in key order", "{.spec.map.*}", "x<y 2"),
        ("wildcard string bytes", "{.metadata.name.*}", "116 111 112"),
        ("bracket key", "{.spec['cronSpec']}", "* * * * */5"),
        ("bracket key splits dots", "{['spec.replicas']}", "3"),
        ("escaped dot key", "{.spec.dotted\\.key}", "dk"),
        ("union", "{.spec.list[0,2]}", "a c"),
        ("union of keys", "{.spec['replicas','suspend']}", "3 false"),
        ("recursive", "{..name}", "top inner leaf"),
        ("recursive from field", "{.spec.deep..name}", "inner leaf"),
        ("quoted literal", "{\"{\"}", "{"),
        ("identifier errors", "{hello}", "ERR"),
    ];
    for (name, template, want) in cases {
        let got = run(template, &spec).unwrap_or_else(|_| "ERR".to_owned());
        assert_eq!(got, *want, "case {name}");
    }
}

#[test]
fn find_results_filters_evaluate_each_operator() {
    let pts = points();
    let nds = nodes();
    let conditions = json!({"status": {"conditions": [
        {"type": "Progressing", "status": "False"},
        {"type": "Ready", "status": "True"}
    ]}});
    let cases: &[(&str, &str, &Value, &str)] = &[
        (
            "crd doc example",
            r#"{.status.conditions[?(@.type=="Ready")].status}"#,
            &conditions,
            "True",
        ),
        (
            "single quotes",
            "{.status.conditions[?(@.type=='Ready')].status}",
            &conditions,
            "True",
        ),
        (
            "spaces",
            r#"{.status.conditions[?(@.type == "Ready")].status}"#,
            &conditions,
            "True",
        ),
        (
            "no match",
            r#"{.status.conditions[?(@.type=="Gone")].status}"#,
            &conditions,
            "",
        ),
        (
            "not equal",
            r#"{.status.conditions[?(@.type!="Ready")].type}"#,
            &conditions,
            "Progressing",
        ),
        ("less", "{[?(@.y<0)].id}", &pts, "i1 i2 i4"),
        ("greater", "{[?(@.y>2)].id}", &pts, "i3 i6 i7"),
        ("less or equal", "{[?(@.y<=-1)].id}", &pts, "i1 i2 i4"),
        ("greater or equal", "{[?(@.y>=3)].id}", &pts, "i3 i6 i7"),
        ("equal number", "{[?(@.y==2)].id}", &pts, "i5"),
        ("exists", "{[?(@.z)].id}", &pts, "i2 i5"),
        (
            "exists counts null",
            "{[?(@.x)].id}",
            &pts,
            "i1 i2 i3 i4 i5 i6 i7",
        ),
        ("null compared errors", "{[?(@.x==9)].id}", &pts, "ERR"),
        ("int vs float errors", "{[?(@.y==4.0)].id}", &pts, "ERR"),
        ("unknown operator errors", "{[?(@.x<>1)].id}", &pts, "ERR"),
        (
            "bool literal",
            "{.items[?(@.status.ready==true)].metadata.name}",
            &nds,
            "127.0.0.1",
        ),
        (
            "recursive in filter",
            "{.items[?(@..ready==true)].metadata.name}",
            &nds,
            "127.0.0.1",
        ),
        (
            "nested field",
            r#"{.users[?(@.name=="e2e")].user.password}"#,
            &nds,
            "secret",
        ),
        (
            "escaped dot in filter",
            r#"{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}"#,
            &nds,
            "None",
        ),
        (
            "filter on map errors",
            r#"{.users[0][?(@.a=="b")]}"#,
            &nds,
            "ERR",
        ),
        (
            "string order",
            r#"{.users[?(@.name<"f")].name}"#,
            &nds,
            "e2e",
        ),
    ];
    for (name, template, data, want) in cases {
        let got = run(template, data).unwrap_or_else(|_| "ERR".to_owned());
        assert_eq!(got, *want, "case {name}");
    }
}

#[test]
fn first_takes_first_value_of_first_list() {
    let data = json!({"a": [1, 2], "b": "x"});
    let path = JsonPath::parse("{.a[*]}").unwrap();
    assert_eq!(path.first(&data).map(|i| i.print()), Some("1".to_owned()));
    let missing = JsonPath::parse("{.c}").unwrap();
    assert_eq!(missing.first(&data), None);
}
