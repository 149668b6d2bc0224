//! Field selectors (`fieldSelector`): apimachinery's `fields.ParseSelector` grammar and matching.
//!
//! Grammar (k8s.io/apimachinery/pkg/fields/selector.go): terms separated by unescaped `,`, each
//! `<field><op><value>` with `op` the first of `!=`, `==`, `=` found scanning left to right. The
//! field is taken verbatim (no trimming, no escaping); in the value `\\`, `\,` and `\=` are the only
//! escapes and a bare `,` or `=` is an error. Terms are sorted, so the first error reported is the
//! first offending term in sorted order, as upstream. A term with empty field and empty value
//! (`=`) selects everything and is dropped.

use std::fmt;

/// Why a field selector was rejected; `Display` is apimachinery's text (callers wrap it in a 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A term has no `=`, `==` or `!=` operator.
    #[error("invalid selector: '{selector}'; can't understand '{term}'")]
    InvalidTerm { selector: String, term: String },
    /// A backslash in a value is followed by something other than `\`, `,` or `=` (or nothing).
    #[error("invalid field selector: invalid escape sequence: {0}")]
    InvalidEscape(String),
    /// A value holds an unescaped `,` or `=`; Go prints the rune as its code point number.
    #[error("invalid field selector: unescaped character in value: {}", u32::from(*.0))]
    UnescapedRune(char),
    /// The field is not selectable for this resource (apiextensions-apiserver's converter text).
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
}

/// How a requirement compares the field with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldOperator {
    /// `=` or `==`.
    Equals,
    /// `!=`.
    NotEquals,
}

/// One `<field><op><value>` term, value unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    pub field: String,
    pub op: FieldOperator,
    pub value: String,
}

impl FieldRequirement {
    /// Whether an object whose field has `actual` (absent compares as `""`) satisfies this term.
    fn matches(&self, actual: Option<String>) -> bool {
        let actual = actual.unwrap_or_default();
        match self.op {
            FieldOperator::Equals => actual == self.value,
            FieldOperator::NotEquals => actual != self.value,
        }
    }
}

/// A parsed field selector: the conjunction of its requirements (empty selects everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// Parses a `fieldSelector` value; `""` selects everything.
    pub fn parse(selector: &str) -> Result<Self, SelectorError> {
        let mut terms = split_terms(selector);
        terms.sort_unstable();
        let mut requirements = Vec::with_capacity(terms.len());
        for term in terms.into_iter().filter(|t| !t.is_empty()) {
            let Some((field, op, raw_value)) = split_term(term) else {
                return Err(SelectorError::InvalidTerm {
                    selector: selector.to_owned(),
                    term: term.to_owned(),
                });
            };
            let value = unescape_value(raw_value)?;
            if field.is_empty() && value.is_empty() {
                continue;
            }
            requirements.push(FieldRequirement {
                field: field.to_owned(),
                op,
                value,
            });
        }
        Ok(Self { requirements })
    }

    /// One `field=value` term (upstream's `OneTermEqualSelector`).
    pub fn exact(field: &str, value: &str) -> Self {
        Self {
            requirements: vec![FieldRequirement {
                field: field.to_owned(),
                op: FieldOperator::Equals,
                value: value.to_owned(),
            }],
        }
    }

    /// The requirements, in upstream's (sorted-term) order.
    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.requirements
    }

    /// Whether the selector restricts nothing.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object matches; `get` returns the object's value for a field label, and a
    /// field it lacks compares as `""` like upstream's `fields.Set`.
    pub fn matches(&self, get: impl Fn(&str) -> Option<String>) -> bool {
        self.requirements.iter().all(|r| r.matches(get(&r.field)))
    }

    /// The value the first `field=X` / `field==X` term pins (`RequiresExactMatch`).
    pub fn requires_exact_match(&self, field: &str) -> Option<&str> {
        self.requirements
            .iter()
            .find(|r| r.op == FieldOperator::Equals && r.field == field)
            .map(|r| r.value.as_str())
    }

    /// The object name a `metadata.name=X` term pins, as upstream's
    /// `SelectionPredicate.MatchesSingle`; other terms may remain, so still apply [`Self::matches`].
    pub fn single_name(&self) -> Option<&str> {
        self.requires_exact_match("metadata.name")
    }

    /// Rejects the first field (in requirement order) not in `supported`, with the text
    /// apiextensions-apiserver's `ConvertFieldLabel` gives for custom resources.
    pub fn check_supported(&self, supported: &[&str]) -> Result<(), SelectorError> {
        match self
            .requirements
            .iter()
            .find(|r| !supported.contains(&r.field.as_str()))
        {
            Some(r) => Err(SelectorError::UnsupportedField(r.field.clone())),
            None => Ok(()),
        }
    }
}

impl fmt::Display for FieldSelector {
    /// Upstream's `String()`: `field=value` / `field!=value` joined by `,`, values escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let op = match r.op {
                FieldOperator::Equals => "=",
                FieldOperator::NotEquals => "!=",
            };
            write!(f, "{sep}{}{op}{}", r.field, escape_value(&r.value))?;
        }
        Ok(())
    }
}

/// Escapes `\`, `,` and `=` so a literal value survives [`FieldSelector::parse`].
pub fn escape_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Splits on commas not preceded by a backslash escape; escapes stay in the terms.
fn split_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::with_capacity(1);
    let (mut start, mut in_slash) = (0, false);
    for (i, c) in selector.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(&selector[start..i]);
            start = i + 1;
        }
    }
    terms.push(&selector[start..]);
    terms
}

/// Splits a term at the first operator occurrence; `!=` and `==` win over `=` at one position.
fn split_term(term: &str) -> Option<(&str, FieldOperator, &str)> {
    const OPERATORS: [(&str, FieldOperator); 3] = [
        ("!=", FieldOperator::NotEquals),
        ("==", FieldOperator::Equals),
        ("=", FieldOperator::Equals),
    ];
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        OPERATORS
            .iter()
            .find(|(op, _)| rest.starts_with(op))
            .map(|(op, kind)| (&term[..i], *kind, &rest[op.len()..]))
    })
}

/// Removes value escapes; unknown escapes and bare `,`/`=` are errors, as upstream.
fn unescape_value(raw: &str) -> Result<String, SelectorError> {
    let mut out = String::with_capacity(raw.len());
    let mut in_slash = false;
    for c in raw.chars() {
        if in_slash {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(SelectorError::InvalidEscape(format!("\\{c}")));
            }
            out.push(c);
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => return Err(SelectorError::UnescapedRune(c)),
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err(SelectorError::InvalidEscape("\\".to_owned()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use FieldOperator::{Equals as Eq, NotEquals as Ne};

    fn req(field: &str, op: FieldOperator, value: &str) -> FieldRequirement {
        let (field, value) = (field.into(), value.into());
        FieldRequirement { field, op, value }
    }

    #[test]
    fn parse_valid_selectors_yield_sorted_requirements() {
        #[rustfmt::skip]
        let cases: Vec<(&str, &str, Vec<FieldRequirement>)> = vec![
            ("empty selects everything", "", vec![]),
            ("single equals", "metadata.name=foo", vec![req("metadata.name", Eq, "foo")]),
            ("double equals", "a==b", vec![req("a", Eq, "b")]),
            ("not equals", "a!=b", vec![req("a", Ne, "b")]),
            ("empty value", "a=", vec![req("a", Eq, "")]),
            ("double equals empty value", "x==", vec![req("x", Eq, "")]),
            ("not-equals empty value", "x!=", vec![req("x", Ne, "")]),
            ("terms sorted", "b=1,a!=2", vec![req("a", Ne, "2"), req("b", Eq, "1")]),
            ("empty terms skipped", ",a=1,,", vec![req("a", Eq, "1")]),
            ("lone equals dropped", "=,a=1", vec![req("a", Eq, "1")]),
            ("lone not-equals dropped", "!=", vec![]),
            ("field and value not trimmed", "a = b", vec![req("a ", Eq, " b")]),
            ("escapes removed", r"a=x\,y\=z\\", vec![req("a", Eq, r"x,y=z\")]),
            ("escaped comma is data", r"a=1\,b\=2", vec![req("a", Eq, "1,b=2")]),
            ("unicode value", "a=ü", vec![req("a", Eq, "ü")]),
        ];
        for (name, input, want) in cases {
            let got = FieldSelector::parse(input).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.requirements(), want.as_slice(), "{name}");
        }
    }

    #[test]
    fn parse_invalid_selectors_return_upstream_text() {
        #[rustfmt::skip]
        let cases = [
            ("no operator", "foo", "invalid selector: 'foo'; can't understand 'foo'"),
            ("second term bad", "a=b,zz", "invalid selector: 'a=b,zz'; can't understand 'zz'"),
            ("sorted order decides", "zz,aa", "invalid selector: 'zz,aa'; can't understand 'aa'"),
            ("unescaped equals", "a=b=c", "invalid field selector: unescaped character in value: 61"),
            ("not-equals then equals", "a!==b", "invalid field selector: unescaped character in value: 61"),
            ("escaped comma then equals", r"a=1\,b=2", "invalid field selector: unescaped character in value: 61"),
            ("unknown escape", r"a=\n", r"invalid field selector: invalid escape sequence: \n"),
            ("trailing backslash", "a=b\\", r"invalid field selector: invalid escape sequence: \"),
        ];
        for (name, input, want) in cases {
            let err = FieldSelector::parse(input).expect_err(name);
            assert_eq!(err.to_string(), want, "{name}");
        }
    }

    #[test]
    fn matches_object_fields_absent_compares_as_empty() {
        let get = |f: &str| match f {
            "metadata.name" => Some("foo".to_owned()),
            "spec.color" => Some(String::new()),
            _ => None,
        };
        #[rustfmt::skip]
        let cases = [
            ("empty", "", true),
            ("name equal", "metadata.name=foo", true),
            ("name differs", "metadata.name=bar", false),
            ("not equal holds", "metadata.name!=bar", true),
            ("absent equals empty", "status.phase=", true),
            ("absent not-equal value", "status.phase!=x", true),
            ("absent equal value", "status.phase=x", false),
            ("conjunction", "metadata.name=foo,spec.color!=red", true),
            ("conjunction fails", "metadata.name=foo,spec.color=red", false),
        ];
        for (name, input, want) in cases {
            let sel = FieldSelector::parse(input).expect(name);
            assert_eq!(sel.matches(get), want, "{name}");
        }
    }

    #[test]
    fn single_name_exact_match_follows_upstream() {
        #[rustfmt::skip]
        let cases = [
            ("lone name", "metadata.name=foo", Some("foo")),
            ("double equals", "metadata.name==foo", Some("foo")),
            ("with other term", "metadata.name=foo,spec.a=b", Some("foo")),
            ("not equals", "metadata.name!=foo", None),
            ("other field", "metadata.namespace=foo", None),
            ("empty", "", None),
        ];
        for (name, input, want) in cases {
            let sel = FieldSelector::parse(input).expect(name);
            assert_eq!(sel.single_name(), want, "{name}");
        }
    }

    #[test]
    fn check_supported_unknown_field_names_first_in_sorted_order() {
        let supported = ["metadata.name", "metadata.namespace", "spec.color"];
        #[rustfmt::skip]
        let cases = [
            ("all supported", "metadata.name=a,spec.color=b", Ok(())),
            ("unknown", "spec.size=1", Err("field label not supported: spec.size")),
            ("first sorted", "z=1,b=2", Err("field label not supported: b")),
            ("empty field", "=x", Err("field label not supported: ")),
        ];
        for (name, input, want) in cases {
            let got = FieldSelector::parse(input)
                .expect(name)
                .check_supported(&supported);
            assert_eq!(
                got.map_err(|e| e.to_string()),
                want.map_err(str::to_owned),
                "{name}"
            );
        }
    }

    #[test]
    fn display_escapes_values_roundtrips() {
        #[rustfmt::skip]
        let cases = [
            ("plain", "b=1,a!=2", "a!=2,b=1"),
            ("double equals normalised", "a==b", "a=b"),
            ("escaped", r"a=x\,y", r"a=x\,y"),
        ];
        for (name, input, want) in cases {
            let sel = FieldSelector::parse(input).expect(name);
            assert_eq!(sel.to_string(), want, "{name}");
            assert_eq!(
                FieldSelector::parse(want).expect(name),
                sel,
                "{name} roundtrip"
            );
        }
    }
}
