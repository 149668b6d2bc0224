//! kube's `TestCostEstimation` table (apiextensions-apiserver
//! `pkg/apiserver/schema/cel/compilation_test.go`) as data: each case a schema generator
//! taking the optional bound (`maxItems`/`maxProperties`/`maxLength`), a rule, and the
//! expected estimated maximum without and with the bound (0: kube does not check it).

use serde_json::{Value, json};

/// How kube builds the case's schema.
#[derive(Clone, Copy, Debug)]
pub enum Gen {
    /// `genArrayWithRule(type)`.
    Array(&'static str),
    /// `genArrayOfArraysWithRule(type)`.
    ArrayOfArrays(&'static str),
    /// `genObjectArrayWithRule`.
    ObjectArray,
    /// `genMapWithRule(type)`.
    Map(&'static str),
    /// `genMapWithCustomItemRule(item)`.
    MapOf(Item),
    /// `getMapArrayWithRule(type)`.
    MapArray(&'static str),
    /// `genStringWithRule`.
    String,
    /// `genBytesWithRule`.
    Bytes,
    /// `genEnumWithRuleAndValues`.
    Enum(&'static [&'static str]),
    /// `genNestedSpecWithRule`.
    NestedSpec,
    /// `genAllMaxNestedSpecWithRootRule` (`true`) / `genOneMaxNestedSpecWithRootRule`.
    Nested { all_max: bool },
    /// An atomic array of strings, both bounded (`extended library join`, `isSorted`).
    StringArray,
    /// `{str, before (maxLength 2), after (maxLength 4)}` (`extended library replace`).
    ReplaceObject,
    /// `{str, separator}` (`extended library split`).
    SplitObject,
    /// int-or-string with `maxLength`.
    IntOrString,
}

#[derive(Clone, Copy, Debug)]
pub enum Item {
    Object,
    NumberMap,
    NumberArray,
}

pub struct Case {
    pub name: &'static str,
    pub shape: Gen,
    pub rule: &'static str,
    pub calc: u64,
    /// The calculated cost must reach this (kube's `expectCalcCostExceedsLimit`).
    pub calc_at_least: u64,
    pub set_max: i64,
    pub set: u64,
}

const fn case(
    name: &'static str,
    shape: Gen,
    rule: &'static str,
    calc: u64,
    set_max: i64,
    set: u64,
) -> Case {
    Case {
        name,
        shape,
        rule,
        calc,
        calc_at_least: 0,
        set_max,
        set,
    }
}

const COST_LIMIT: u64 = 100_000_000;

pub const CASES: &[Case] = &[
    case(
        "number array with all",
        Gen::Array("number"),
        "self.all(x, true)",
        4718591,
        10,
        32,
    ),
    case(
        "string array with all",
        Gen::Array("string"),
        "self.all(x, true)",
        3145727,
        20,
        62,
    ),
    case(
        "boolean array with all",
        Gen::Array("boolean"),
        "self.all(x, true)",
        1887437,
        5,
        17,
    ),
    case(
        "array of number arrays with all",
        Gen::ArrayOfArrays("number"),
        "self.all(x, true)",
        3145727,
        100,
        302,
    ),
    case(
        "array of objects with all",
        Gen::ObjectArray,
        "self.all(x, true)",
        555128,
        50,
        152,
    ),
    case(
        "map of numbers with all",
        Gen::Map("number"),
        "self.all(x, true)",
        1348169,
        10,
        32,
    ),
    case(
        "map of numbers with has",
        Gen::Map("number"),
        "has(self.x)",
        0,
        100,
        0,
    ),
    case(
        "map of strings with all",
        Gen::Map("string"),
        "self.all(x, true)",
        1179647,
        3,
        11,
    ),
    case(
        "map of booleans with all",
        Gen::Map("boolean"),
        "self.all(x, true)",
        943718,
        100,
        302,
    ),
    case(
        "string with contains",
        Gen::String,
        "self.contains('test')",
        314574,
        10,
        5,
    ),
    case(
        "string with startsWith",
        Gen::String,
        "self.startsWith('test')",
        2,
        15,
        2,
    ),
    case(
        "string with endsWith",
        Gen::String,
        "self.endsWith('test')",
        2,
        30,
        2,
    ),
    case(
        "concat string",
        Gen::String,
        r#"size(self + "hello") > size("hello")"#,
        314578,
        4,
        7,
    ),
    case(
        "index of array with numbers",
        Gen::Array("number"),
        "self[1] == 0.0",
        2,
        5000,
        2,
    ),
    case(
        "index of array with strings",
        Gen::Array("string"),
        "self[1] == self[1]",
        314577,
        8,
        314577,
    ),
    Case {
        calc_at_least: COST_LIMIT,
        ..case(
            "O(n^2) loop with numbers",
            Gen::Array("number"),
            "self.all(x, self.all(y, true))",
            0,
            10,
            352,
        )
    },
    Case {
        calc_at_least: COST_LIMIT,
        ..case(
            "O(n^3) loop with numbers",
            Gen::Array("number"),
            "self.all(x, self.all(y, self.all(z, true)))",
            0,
            10,
            3552,
        )
    },
    case(
        "regex matches simple",
        Gen::String,
        r#"self.matches("x")"#,
        314574,
        50,
        22,
    ),
    case(
        "regex matches empty string",
        Gen::String,
        r#""".matches("(((((((((())))))))))[0-9]")"#,
        7,
        10,
        7,
    ),
    case(
        "regex matches empty regex",
        Gen::String,
        r#"self.matches("")"#,
        1,
        100,
        1,
    ),
    case(
        "map of strings with value length",
        Gen::NestedSpec,
        "self.all(x, x.contains(self[x]))",
        2752507,
        10,
        72,
    ),
    case(
        "set array maxLength to zero",
        Gen::Array("number"),
        "self[3] == 0.0",
        2,
        0,
        2,
    ),
    case(
        "set map maxLength to zero",
        Gen::Map("number"),
        r#"self["x"] == 0.0"#,
        2,
        0,
        2,
    ),
    case(
        "set string maxLength to zero",
        Gen::String,
        r#"self == "x""#,
        2,
        0,
        1,
    ),
    case(
        "set bytes maxLength to zero",
        Gen::Bytes,
        r#"self == b"x""#,
        2,
        0,
        1,
    ),
    case(
        "set maxLength greater than estimated maxLength",
        Gen::Array("number"),
        "self.all(x, x == 0.0)",
        6291454,
        3 * 1024 * 2048,
        25165826,
    ),
    case(
        "nested types with root rule with all supporting maxLength",
        Gen::Nested { all_max: true },
        r#"self.all(x, x["y"].required == "z")"#,
        7340027,
        10,
        72,
    ),
    case(
        "nested types with root rule with one supporting maxLength",
        Gen::Nested { all_max: false },
        r#"self.all(x, x["y"].required == "z")"#,
        7340027,
        10,
        7340027,
    ),
    case(
        "int-or-string array with all",
        Gen::Array("int-or-string"),
        "self.all(x, true)",
        4718591,
        10,
        32,
    ),
    case(
        "index of array with int-or-strings",
        Gen::Array("int-or-string"),
        "self[0] == 5",
        3,
        10,
        3,
    ),
    case(
        "index of array with booleans",
        Gen::Array("boolean"),
        "self[0] == false",
        2,
        25,
        2,
    ),
    case(
        "index of array of objects",
        Gen::ObjectArray,
        "self[0] == null",
        2,
        422,
        2,
    ),
    case(
        "index of array of array of numnbers",
        Gen::ArrayOfArrays("number"),
        "self[0][0] == -1.0",
        3,
        51,
        3,
    ),
    case(
        "array of number maps with all",
        Gen::MapArray("number"),
        "self.all(x, x.y == 25.2)",
        6291452,
        12,
        74,
    ),
    case(
        "index of array of number maps",
        Gen::MapArray("number"),
        "self[0].x > 2.0",
        4,
        3000,
        4,
    ),
    case(
        "duration array with all",
        Gen::Array("duration"),
        "self.all(x, true)",
        2359295,
        5,
        17,
    ),
    case(
        "index of duration array",
        Gen::Array("duration"),
        "self[0].getHours() == 2",
        4,
        525,
        4,
    ),
    case(
        "date array with all",
        Gen::Array("date"),
        "self.all(x, true)",
        725936,
        15,
        47,
    ),
    case(
        "index of date array",
        Gen::Array("date"),
        "self[2].getDayOfMonth() == 13",
        4,
        42,
        4,
    ),
    case(
        "date-time array with all",
        Gen::Array("date-time"),
        "self.all(x, true)",
        428963,
        25,
        77,
    ),
    case(
        "index of date-time array",
        Gen::Array("date-time"),
        "self[2].getMinutes() == 45",
        4,
        99,
        4,
    ),
    case(
        "map of int-or-strings with all",
        Gen::Map("int-or-string"),
        "self.all(x, true)",
        1348169,
        15,
        47,
    ),
    case(
        "map of objects with all",
        Gen::MapOf(Item::Object),
        "self.all(x, true)",
        428963,
        20,
        62,
    ),
    case(
        "map of number maps with all",
        Gen::MapOf(Item::NumberMap),
        "self.all(x, true)",
        1179647,
        10,
        32,
    ),
    case(
        "map of number arrays with all",
        Gen::MapOf(Item::NumberArray),
        "self.all(x, true)",
        1179647,
        25,
        77,
    ),
    case(
        "map of durations with all",
        Gen::Map("duration"),
        "self.all(x, true)",
        1048577,
        5,
        17,
    ),
    case(
        "map of dates with all",
        Gen::Map("date"),
        "self.all(x, true)",
        524288,
        10,
        32,
    ),
    case(
        "map of date-times with all",
        Gen::Map("date-time"),
        "self.all(x, true)",
        349526,
        25,
        77,
    ),
    case(
        "extended library regex find",
        Gen::String,
        "self.find('[0-9]+') == ''",
        629147,
        10,
        11,
    ),
    case(
        "extended library join",
        Gen::StringArray,
        "self.join(' ') == 'aa bb'",
        329853068905,
        10,
        43,
    ),
    case(
        "extended library isSorted",
        Gen::StringArray,
        "self.isSorted() == true",
        329854432052,
        10,
        52,
    ),
    case(
        "extended library replace",
        Gen::ReplaceObject,
        "self.str.replace(self.before, self.after) == 'does not matter'",
        629154,
        4,
        12,
    ),
    case(
        "extended library split",
        Gen::SplitObject,
        "self.str.split(self.separator) == []",
        629160,
        10,
        22,
    ),
    case(
        "extended library lowerAscii",
        Gen::String,
        "self.lowerAscii() == 'lower!'",
        314575,
        10,
        6,
    ),
    case(
        "check cost of size call",
        Gen::Map("integer"),
        "oldSelf.size() == self.size()",
        5,
        10,
        5,
    ),
    case(
        "check cost of timestamp comparison",
        Gen::Map("date-time"),
        r#"self["a"] == self["b"]"#,
        8,
        7,
        8,
    ),
    case(
        "check cost of duration comparison",
        Gen::Map("duration"),
        r#"self["c"] == self["d"]"#,
        8,
        42,
        8,
    ),
    case(
        "enums with maxLength equals to the longest possible value",
        Gen::Enum(&["A", "B", "C", "LongValue"]),
        "self.contains('A')",
        2,
        1000,
        401,
    ),
    case(
        "IntOrString type with quantity rule",
        Gen::IntOrString,
        "isQuantity(self)",
        314574,
        20,
        9,
    ),
];

/// Sets `key` to the bound when there is one.
fn bounded(mut v: Value, key: &str, max: Option<i64>) -> Value {
    if let (Some(max), Some(obj)) = (max, v.as_object_mut()) {
        obj.insert(key.to_string(), json!(max));
    }
    v
}

/// kube's `parseRuleType`: formats of strings, and int-or-string.
fn typed(t: &str) -> Value {
    match t {
        "duration" | "date" | "date-time" => json!({"type": "string", "format": t}),
        "int-or-string" => json!({"x-kubernetes-int-or-string": true}),
        _ => json!({"type": t}),
    }
}

fn required_optional_object() -> Value {
    json!({
        "type": "object",
        "properties": {"required": {"type": "string"}, "optional": {"type": "string"}},
        "required": ["required"],
    })
}

impl Gen {
    /// The schema, with `max` as kube's generator places it.
    pub fn schema(self, max: Option<i64>) -> Value {
        match self {
            Gen::Array(t) => bounded(json!({"type": "array", "items": typed(t)}), "maxItems", max),
            Gen::ArrayOfArrays(t) => bounded(
                json!({"type": "array", "items": {"type": "array", "items": {"type": t}}}),
                "maxItems",
                max,
            ),
            Gen::ObjectArray => bounded(
                json!({"type": "array", "items": required_optional_object()}),
                "maxItems",
                max,
            ),
            Gen::Map(t) => bounded(
                json!({"type": "object", "additionalProperties": typed(t)}),
                "maxProperties",
                max,
            ),
            Gen::MapOf(item) => {
                let item = match item {
                    Item::Object => required_optional_object(),
                    Item::NumberMap => {
                        json!({"type": "object", "additionalProperties": {"type": "number"}})
                    }
                    Item::NumberArray => json!({"type": "array", "items": {"type": "number"}}),
                };
                bounded(
                    json!({"type": "object", "additionalProperties": item}),
                    "maxProperties",
                    max,
                )
            }
            Gen::MapArray(t) => bounded(
                json!({"type": "array", "items": {"type": "object", "additionalProperties": {"type": t}}}),
                "maxItems",
                max,
            ),
            Gen::String => bounded(json!({"type": "string"}), "maxLength", max),
            Gen::Bytes => bounded(
                json!({"type": "string", "format": "byte"}),
                "maxLength",
                max,
            ),
            Gen::Enum(values) => {
                bounded(json!({"type": "string", "enum": values}), "maxLength", max)
            }
            Gen::NestedSpec => {
                let value = bounded(json!({"type": "string"}), "maxLength", max);
                bounded(
                    json!({"type": "object", "additionalProperties": value}),
                    "maxProperties",
                    max,
                )
            }
            Gen::Nested { all_max } => {
                let inner = bounded(
                    required_optional_object(),
                    "maxProperties",
                    max.filter(|_| all_max),
                );
                let item = bounded(
                    json!({"type": "object", "additionalProperties": inner}),
                    "maxProperties",
                    max,
                );
                bounded(
                    json!({"type": "array", "items": item}),
                    "maxItems",
                    max.filter(|_| all_max),
                )
            }
            Gen::StringArray => {
                let item = bounded(json!({"type": "string"}), "maxLength", max);
                bounded(
                    json!({"type": "array", "x-kubernetes-list-type": "atomic", "items": item}),
                    "maxItems",
                    max,
                )
            }
            Gen::ReplaceObject => json!({"type": "object", "properties": {
                "str": bounded(json!({"type": "string"}), "maxLength", max),
                "before": {"type": "string", "maxLength": 2},
                "after": {"type": "string", "maxLength": 4},
            }}),
            Gen::SplitObject => {
                let s = bounded(json!({"type": "string"}), "maxLength", max);
                json!({"type": "object", "properties": {"str": s, "separator": s}})
            }
            Gen::IntOrString => bounded(
                json!({"x-kubernetes-int-or-string": true}),
                "maxLength",
                max,
            ),
        }
    }
}
