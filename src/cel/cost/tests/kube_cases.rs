//! kube's `TestCostEstimation` table (apiextensions-apiserver
//! `pkg/apiserver/schema/cel/compilation_test.go`) as data: each case a schema generator
//! taking the optional bound (`maxItems`/`maxProperties`/`maxLength`), a rule, and the
//! expected estimated maximum without and with the bound (0: kube does not check it).

use super::kube_schemas::Gen::{self, *};
use super::kube_schemas::Item;

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

#[rustfmt::skip]
pub const CASES: &[Case] = &[
    case("number array with all", Array("number"), "self.all(x, true)", 4718591, 10, 32),
    case("string array with all", Array("string"), "self.all(x, true)", 3145727, 20, 62),
    case("boolean array with all", Array("boolean"), "self.all(x, true)", 1887437, 5, 17),
    case("array of number arrays with all", ArrayOfArrays("number"), "self.all(x, true)", 3145727, 100, 302),
    case("array of objects with all", ObjectArray, "self.all(x, true)", 555128, 50, 152),
    case("map of numbers with all", Map("number"), "self.all(x, true)", 1348169, 10, 32),
    case("map of numbers with has", Map("number"), "has(self.x)", 0, 100, 0),
    case("map of strings with all", Map("string"), "self.all(x, true)", 1179647, 3, 11),
    case("map of booleans with all", Map("boolean"), "self.all(x, true)", 943718, 100, 302),
    case("string with contains", String, "self.contains('test')", 314574, 10, 5),
    case("string with startsWith", String, "self.startsWith('test')", 2, 15, 2),
    case("string with endsWith", String, "self.endsWith('test')", 2, 30, 2),
    case("concat string", String, r#"size(self + "hello") > size("hello")"#, 314578, 4, 7),
    case("index of array with numbers", Array("number"), "self[1] == 0.0", 2, 5000, 2),
    case("index of array with strings", Array("string"), "self[1] == self[1]", 314577, 8, 314577),
    Case {calc_at_least: COST_LIMIT, ..case("O(n^2) loop with numbers", Array("number"), "self.all(x, self.all(y, true))", 0, 10, 352)},
    Case {calc_at_least: COST_LIMIT, ..case("O(n^3) loop with numbers", Array("number"), "self.all(x, self.all(y, self.all(z, true)))", 0, 10, 3552)},
    case("regex matches simple", String, r#"self.matches("x")"#, 314574, 50, 22),
    case("regex matches empty string", String, r#""".matches("(((((((((())))))))))[0-9]")"#, 7, 10, 7),
    case("regex matches empty regex", String, r#"self.matches("")"#, 1, 100, 1),
    case("map of strings with value length", NestedSpec, "self.all(x, x.contains(self[x]))", 2752507, 10, 72),
    case("set array maxLength to zero", Array("number"), "self[3] == 0.0", 2, 0, 2),
    case("set map maxLength to zero", Map("number"), r#"self["x"] == 0.0"#, 2, 0, 2),
    case("set string maxLength to zero", String, r#"self == "x""#, 2, 0, 1),
    case("set bytes maxLength to zero", Bytes, r#"self == b"x""#, 2, 0, 1),
    case("set maxLength greater than estimated maxLength", Array("number"), "self.all(x, x == 0.0)", 6291454, 3 * 1024 * 2048, 25165826),
    case("nested types with root rule with all supporting maxLength", Nested {all_max: true}, r#"self.all(x, x["y"].required == "z")"#, 7340027, 10, 72),
    case("nested types with root rule with one supporting maxLength", Nested {all_max: false}, r#"self.all(x, x["y"].required == "z")"#, 7340027, 10, 7340027),
    case("int-or-string array with all", Array("int-or-string"), "self.all(x, true)", 4718591, 10, 32),
    case("index of array with int-or-strings", Array("int-or-string"), "self[0] == 5", 3, 10, 3),
    case("index of array with booleans", Array("boolean"), "self[0] == false", 2, 25, 2),
    case("index of array of objects", ObjectArray, "self[0] == null", 2, 422, 2),
    case("index of array of array of numnbers", ArrayOfArrays("number"), "self[0][0] == -1.0", 3, 51, 3),
    case("array of number maps with all", MapArray("number"), "self.all(x, x.y == 25.2)", 6291452, 12, 74),
    case("index of array of number maps", MapArray("number"), "self[0].x > 2.0", 4, 3000, 4),
    case("duration array with all", Array("duration"), "self.all(x, true)", 2359295, 5, 17),
    case("index of duration array", Array("duration"), "self[0].getHours() == 2", 4, 525, 4),
    case("date array with all", Array("date"), "self.all(x, true)", 725936, 15, 47),
    case("index of date array", Array("date"), "self[2].getDayOfMonth() == 13", 4, 42, 4),
    case("date-time array with all", Array("date-time"), "self.all(x, true)", 428963, 25, 77),
    case("index of date-time array", Array("date-time"), "self[2].getMinutes() == 45", 4, 99, 4),
    case("map of int-or-strings with all", Map("int-or-string"), "self.all(x, true)", 1348169, 15, 47),
    case("map of objects with all", MapOf(Item::Object), "self.all(x, true)", 428963, 20, 62),
    case("map of number maps with all", MapOf(Item::NumberMap), "self.all(x, true)", 1179647, 10, 32),
    case("map of number arrays with all", MapOf(Item::NumberArray), "self.all(x, true)", 1179647, 25, 77),
    case("map of durations with all", Map("duration"), "self.all(x, true)", 1048577, 5, 17),
    case("map of dates with all", Map("date"), "self.all(x, true)", 524288, 10, 32),
    case("map of date-times with all", Map("date-time"), "self.all(x, true)", 349526, 25, 77),
    case("extended library regex find", String, "self.find('[0-9]+') == ''", 629147, 10, 11),
    case("extended library join", StringArray, "self.join(' ') == 'aa bb'", 329853068905, 10, 43),
    case("extended library isSorted", StringArray, "self.isSorted() == true", 329854432052, 10, 52),
    case("extended library replace", ReplaceObject, "self.str.replace(self.before, self.after) == 'does not matter'", 629154, 4, 12),
    case("extended library split", SplitObject, "self.str.split(self.separator) == []", 629160, 10, 22),
    case("extended library lowerAscii", String, "self.lowerAscii() == 'lower!'", 314575, 10, 6),
    case("check cost of size call", Map("integer"), "oldSelf.size() == self.size()", 5, 10, 5),
    case("check cost of timestamp comparison", Map("date-time"), r#"self["a"] == self["b"]"#, 8, 7, 8),
    case("check cost of duration comparison", Map("duration"), r#"self["c"] == self["d"]"#, 8, 42, 8),
    case("enums with maxLength equals to the longest possible value", Enum(&["A", "B", "C", "LongValue"]), "self.contains('A')", 2, 1000, 401),
    case("IntOrString type with quantity rule", IntOrString, "isQuantity(self)", 314574, 20, 9),
];
