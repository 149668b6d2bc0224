//! Duplicate keys of a YAML body as go-yaml v2's strict decoding reports them (the
//! first error that kube's YAML serializer returns under `fieldValidation=Strict`).

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, Span};

use crate::gofmt::{float_v, quote};

/// The single go-yaml error listing every duplicate key, or nothing.
pub fn duplicates(body: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(body) else {
        return Vec::new();
    };
    let mut options = Options::default();
    options.emit_anchor_events = true;
    let mut events = Parser::new_from_str_with_options(text, options).peekable();
    let mut scan = YamlScan::default();
    while let Some(event) = events.next() {
        let Ok((event, span)) = event else {
            return Vec::new();
        };
        let mut line = node_line(text, &event, &span);
        // An anchor event follows its node; go-yaml's node starts at the anchor.
        if let Some(Ok((Event::Anchor(..), anchor))) = events.peek() {
            line = line.min(anchor.start.line());
        }
        match event {
            // go-yaml decodes the first document only.
            Event::DocumentEnd => break,
            Event::Scalar(value, style, _, tag) => {
                let is_key = scan.begin(line);
                let str_tag = tag.is_some_and(|t| t.suffix() == "str");
                scan.finish(
                    is_key
                        .then(|| resolve_key(&value, style, str_tag))
                        .flatten(),
                );
            }
            Event::Alias(_) => {
                scan.begin(line);
                scan.finish(None);
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                scan.begin(line);
                let keys = matches!(event, Event::MappingStart(..)).then(HashSet::new);
                scan.frames.push(Frame {
                    keys,
                    state: State::Key,
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                scan.frames.pop();
                scan.finish(None);
            }
            _ => {}
        }
    }
    if scan.errors.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "yaml: unmarshal errors:\n  {}",
        scan.errors.join("\n  ")
    )]
}

/// The line where go-yaml (libyaml) starts a node: at its tag if it has one, and at the
/// `|` or `>` indicator of a block scalar, whose span here starts at the content.
fn node_line(text: &str, event: &Event, span: &Span) -> usize {
    let mut line = span.start.line();
    if let Some(tag) = span.tag_start {
        line = line.min(tag.line());
    }
    if let (Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, ..), Some(start)) =
        (event, span.start.byte_offset())
    {
        let at_indicator = text.get(start..).is_some_and(|t| t.starts_with(['|', '>']));
        let before = text.get(..start).unwrap_or_default();
        if let (false, Some(indicator)) = (at_indicator, before.rfind(['|', '>'])) {
            line = line.saturating_sub(before[indicator..].matches('\n').count());
        }
    }
    line
}

/// go-yaml v2's decoding of mappings, reduced to what strict mode checks: after each
/// value, whether its key was already set (`line` is the value's).
#[derive(Default)]
struct YamlScan {
    frames: Vec<Frame>,
    errors: Vec<String>,
}

/// An open collection; `keys` is `None` for a sequence.
struct Frame {
    keys: Option<HashSet<YamlKey>>,
    state: State,
}

enum State {
    Key,
    InKey,
    /// A key was read; `None` for keys that are never compared (complex, alias, merge).
    Value(Option<YamlKey>),
    InValue(Option<YamlKey>, usize),
}

impl YamlScan {
    /// A node starts at `line`; `true` when it is a mapping key.
    fn begin(&mut self, line: usize) -> bool {
        let Some(Frame {
            keys: Some(_),
            state,
        }) = self.frames.last_mut()
        else {
            return false;
        };
        match std::mem::replace(state, State::Key) {
            State::Key => {
                *state = State::InKey;
                true
            }
            State::Value(key) => {
                *state = State::InValue(key, line);
                false
            }
            other => {
                *state = other;
                false
            }
        }
    }

    /// A node ended; `key` is its resolved value when it was a scalar key.
    fn finish(&mut self, key: Option<YamlKey>) {
        let Some(Frame {
            keys: Some(keys),
            state,
        }) = self.frames.last_mut()
        else {
            return;
        };
        match std::mem::replace(state, State::Key) {
            State::InKey => *state = State::Value(key),
            State::InValue(Some(YamlKey::Float(x)), _) if x.is_nan() => {}
            State::InValue(Some(key), line) if keys.contains(&key) => {
                self.errors
                    .push(format!("line {line}: key {key} already set in map"));
            }
            State::InValue(Some(key), _) => {
                keys.insert(key);
            }
            State::Value(key) => *state = State::Value(key),
            State::InValue(None, _) | State::Key => {}
        }
    }
}

/// A mapping key as go-yaml v2 resolves it into an `interface{}`.
enum YamlKey {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
}

impl YamlKey {
    /// What equality compares: floats by bits, `-0` as `0` (NaN keys never reach a set).
    fn canonical(&self) -> (u8, i128, u64, &str) {
        match self {
            YamlKey::Null => (0, 0, 0, ""),
            YamlKey::Bool(b) => (1, i128::from(*b), 0, ""),
            YamlKey::Int(i) => (2, *i, 0, ""),
            YamlKey::Float(x) => (3, 0, (if *x == 0.0 { 0.0 } else { *x }).to_bits(), ""),
            YamlKey::Str(s) => (4, 0, 0, s),
        }
    }
}

impl PartialEq for YamlKey {
    fn eq(&self, other: &Self) -> bool {
        self.canonical() == other.canonical()
    }
}

impl Eq for YamlKey {}

impl Hash for YamlKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.canonical().hash(state);
    }
}

/// Go's `%#v` of the key.
impl fmt::Display for YamlKey {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            YamlKey::Null => f.write_str("<nil>"),
            YamlKey::Bool(b) => write!(f, "{b}"),
            YamlKey::Int(i) => write!(f, "{i}"),
            YamlKey::Float(x) => f.write_str(&float_v(*x)),
            YamlKey::Str(s) => f.write_str(&quote(s)),
        }
    }
}

/// YAML 1.1 resolution of go-yaml v2 (`resolve.go`); `None` for the merge key `<<`.
fn resolve_key(value: &str, style: ScalarStyle, str_tag: bool) -> Option<YamlKey> {
    if style != ScalarStyle::Plain || str_tag {
        return Some(YamlKey::Str(value.to_string()));
    }
    Some(match value {
        "" | "~" | "null" | "Null" | "NULL" => YamlKey::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            YamlKey::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            YamlKey::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => YamlKey::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => YamlKey::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => YamlKey::Float(f64::NAN),
        "<<" => return None,
        _ => number(value).unwrap_or_else(|| YamlKey::Str(value.to_string())),
    })
}

fn number(value: &str) -> Option<YamlKey> {
    if value.starts_with('.') {
        return value.parse().ok().map(YamlKey::Float);
    }
    if !value.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') {
        return None;
    }
    let plain = value.replace('_', "");
    if let Some(i) = go_int(&plain) {
        return Some(YamlKey::Int(i));
    }
    is_yaml_float(&plain)
        .then(|| plain.parse().ok().map(YamlKey::Float))
        .flatten()
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint` for larger values.
fn go_int(s: &str) -> Option<i128> {
    let (negative, unsigned) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits) = match lower.get(..2) {
        Some("0x") => (16, &unsigned[2..]),
        Some("0o") => (8, &unsigned[2..]),
        Some("0b") => (2, &unsigned[2..]),
        _ if unsigned.len() > 1 && unsigned.starts_with('0') => (8, &unsigned[1..]),
        _ => (10, unsigned),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let magnitude = i128::from(u64::from_str_radix(digits, radix).ok()?);
    match (negative, s.starts_with('+')) {
        (true, _) if magnitude <= 1 << 63 => Some(-magnitude),
        (false, false) => Some(magnitude),
        (false, true) if magnitude < 1 << 63 => Some(magnitude),
        _ => None,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(lines: &[&str]) -> Vec<String> {
        vec![format!("yaml: unmarshal errors:\n  {}", lines.join("\n  "))]
    }

    #[test]
    fn duplicates_yaml_table() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("yaml_no_duplicates_none", "a: 1\nb:\n  a: 2\n", &[]),
            (
                "yaml_top_level_duplicate_reported",
                "a: 1\na: 2\n",
                &[r#"line 2: key "a" already set in map"#],
            ),
            (
                "yaml_block_value_reported_at_its_first_line",
                "spec:\n  replicas: 1\nspec:\n  replicas: 2\n",
                &[r#"line 4: key "spec" already set in map"#],
            ),
            (
                "yaml_nested_duplicate_before_outer",
                "s:\n  x: 1\ns:\n  z: 1\n  z: 2\n",
                &[
                    r#"line 5: key "z" already set in map"#,
                    r#"line 4: key "s" already set in map"#,
                ],
            ),
            (
                "yaml_sequence_item_duplicate_reported",
                "items:\n- a: 1\n  a: 2\n",
                &[r#"line 3: key "a" already set in map"#],
            ),
            (
                "yaml_flow_mapping_duplicate_reported",
                "{a: 1, a: 2}",
                &[r#"line 1: key "a" already set in map"#],
            ),
            (
                "yaml_empty_value_line_of_key",
                "a: 1\na:\nb: 2\n",
                &[r#"line 2: key "a" already set in map"#],
            ),
            (
                "yaml_bool_keys_resolved_yaml11",
                "yes: 1\ny: 2\n",
                &["line 2: key true already set in map"],
            ),
            (
                "yaml_int_keys_resolved",
                "1: a\n0x1: b\n",
                &["line 2: key 1 already set in map"],
            ),
            (
                "yaml_null_keys_resolved",
                "~: a\nnull: b\n",
                &["line 2: key <nil> already set in map"],
            ),
            (
                "yaml_block_scalar_at_indicator_line",
                "a: 1\na: |\n  text\n",
                &[r#"line 2: key "a" already set in map"#],
            ),
            (
                "yaml_anchored_mapping_at_anchor_line",
                "a: 1\na: &x\n  b: 1\n",
                &[r#"line 2: key "a" already set in map"#],
            ),
            (
                "yaml_tagged_mapping_at_tag_line",
                "a: 1\na: !!map\n  b: 1\n",
                &[r#"line 2: key "a" already set in map"#],
            ),
            ("yaml_quoted_and_plain_differ", "'1': a\n1: b\n", &[]),
            (
                "yaml_second_document_ignored",
                "a: 1\n---\na: 1\na: 2\n",
                &[],
            ),
            ("yaml_invalid_body_none", "a: [1\na: 2\n", &[]),
            (
                "yaml_negative_zero_key_equals_zero",
                "-0.0: a\n0.0: b\n",
                &["line 2: key 0 already set in map"],
            ),
            ("yaml_nan_keys_never_equal", ".nan: a\n.NaN: b\n", &[]),
            ("yaml_int_and_float_keys_differ", "1: a\n1.0: b\n", &[]),
        ];
        for (name, body, want) in cases {
            let want = if want.is_empty() {
                Vec::new()
            } else {
                message(want)
            };
            assert_eq!(duplicates(body.as_bytes()), want, "{name}");
        }
    }

    #[test]
    fn duplicates_yaml_many_keys_found() {
        let mut body: String = (0..100_000).map(|i| format!("k{i}: 1\n")).collect();
        body.push_str("k7: 2\n");
        assert_eq!(
            duplicates(body.as_bytes()),
            message(&[r#"line 100001: key "k7" already set in map"#])
        );
    }
}
