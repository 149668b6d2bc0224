//! Reading a policy file as kube's `LoadPolicyFromBytes` does: JSON or YAML, the
//! serializer's apiVersion/kind reading (only `audit.k8s.io/v1` `Policy`; a missing kind
//! is `Policy`), Go's type errors, and unknown fields ignored with a warning (the strict
//! decoder fails, the lenient one is used).

use serde_json::{Map, Value};

use crate::gofmt::quote;
use crate::request::body::decode_yaml;
use crate::request::gojson::{self, Flavor, GoType, OBJECT_META, ParseError, unmarshal_error};
use crate::request::strict::yaml::duplicates;

/// The scheme kube registers the audit types in, as its errors name it.
const SCHEME: &str = "pkg/audit/scheme.go:30";
const GROUP: &str = "audit.k8s.io";

const STRINGS: GoType = GoType::Slice("[]string", &GoType::Str("string"));
const STAGES: GoType = GoType::Slice("[]v1.Stage", &GoType::Str("v1.Stage"));

const GROUP_RESOURCES: GoType = GoType::Struct(
    "GroupResources",
    "v1.GroupResources",
    &[
        ("group", GoType::Str("string")),
        ("resources", STRINGS),
        ("resourceNames", STRINGS),
    ],
);

const POLICY_RULE: GoType = GoType::Struct(
    "PolicyRule",
    "v1.PolicyRule",
    &[
        ("level", GoType::Str("v1.Level")),
        ("users", STRINGS),
        ("userGroups", STRINGS),
        ("verbs", STRINGS),
        (
            "resources",
            GoType::Slice("[]v1.GroupResources", &GROUP_RESOURCES),
        ),
        ("namespaces", STRINGS),
        ("nonResourceURLs", STRINGS),
        ("omitStages", STAGES),
        ("omitManagedFields", GoType::Bool),
    ],
);

/// `audit.k8s.io/v1` Policy as Go decodes it.
const POLICY: GoType = GoType::Struct(
    "Policy",
    "v1.Policy",
    &[
        ("kind", GoType::Str("string")),
        ("apiVersion", GoType::Str("string")),
        ("metadata", OBJECT_META),
        ("rules", GoType::Slice("[]v1.PolicyRule", &POLICY_RULE)),
        ("omitStages", STAGES),
        ("omitManagedFields", GoType::Bool),
    ],
);

/// A decoded, not yet validated policy: strings as written (levels and stages are checked
/// by validation), empty where the file says nothing or `null`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawPolicy {
    pub rules: Vec<RawRule>,
    pub omit_stages: Vec<String>,
    pub omit_managed_fields: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawRule {
    pub level: String,
    pub users: Vec<String>,
    pub user_groups: Vec<String>,
    pub verbs: Vec<String>,
    pub resources: Vec<RawGroupResources>,
    pub namespaces: Vec<String>,
    pub non_resource_urls: Vec<String>,
    pub omit_stages: Vec<String>,
    pub omit_managed_fields: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawGroupResources {
    pub group: String,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
}

/// A decoded policy and what the strict decoder refused and the lenient one let pass
/// (duplicate and unknown fields), in the strict decoder's words.
#[derive(Debug)]
pub struct Decoded {
    pub policy: RawPolicy,
    pub strict_errors: Vec<String>,
}

/// Decodes a policy file's bytes; the error is kube's text after `loading audit policy
/// file: ` and before `: from file <path>`.
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let (value, mut strict_errors) = read(bytes).map_err(|e| format!("failed decoding: {e}"))?;
    let (group, version, kind) = group_version_kind(&value)?;
    if (group.as_str(), version.as_str()) != (GROUP, "v1") {
        return Err(format!(
            "unknown group version field {group}/{version}, Kind={kind} in policy"
        ));
    }
    if let Some(e) = unmarshal_error(&value, &POLICY) {
        return Err(format!("failed decoding: {e}"));
    }
    let policy = policy(&value, &mut strict_errors);
    Ok(Decoded {
        policy,
        strict_errors,
    })
}

/// The file as a JSON value, with its duplicate fields: JSON when it starts with `{`
/// (kube's serializer recognises JSON so), YAML otherwise (its first document).
fn read(bytes: &[u8]) -> Result<(Value, Vec<String>), String> {
    let json = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if !json {
        let value = decode_yaml(bytes)?;
        return Ok((value, duplicates(bytes)));
    }
    gojson::parse_reporting(bytes, Flavor::V1, true).map_err(|e| match e {
        ParseError::Syntax(text) => {
            format!("couldn't get version/kind; json parse error: {text}")
        }
        ParseError::TooDeep => {
            "couldn't get version/kind; json parse error: exceeded max depth".into()
        }
        ParseError::Other(text) => text,
    })
}

/// The serializer's reading of apiVersion and kind, with the defaults decoding into an
/// internal Policy fills in: kind `Policy`, and the internal version when apiVersion is
/// absent. Kinds other than Policy fail as kube's scheme fails them. Returns the group,
/// version and kind.
fn group_version_kind(value: &Value) -> Result<(String, String, String), String> {
    let api_version = gojson::sniff(gojson::values_members(value))
        .map_err(|e| format!("failed decoding: {e}"))?;
    let (group, version) =
        gojson::parse_group_version(&api_version).map_err(|e| format!("failed decoding: {e}"))?;
    let kind = match value.get("kind").and_then(Value::as_str) {
        None | Some("") => "Policy",
        Some(kind) => kind,
    };
    let version = match (group, version) {
        ("", "") | (GROUP, "") => "__internal",
        (_, version) => version,
    };
    let group = if group.is_empty() && version == "__internal" {
        GROUP
    } else {
        group
    };
    match (group, version, kind) {
        (GROUP, "__internal" | "v1", "Policy") => {
            Ok((group.to_owned(), version.to_owned(), kind.to_owned()))
        }
        (GROUP, "__internal", kind) => Err(format!(
            "failed decoding: no kind {} is registered for the internal version of group {GROUP:?} in scheme {SCHEME:?}",
            quote(kind)
        )),
        (GROUP, "v1", kind @ ("Event" | "EventList" | "PolicyList")) => Err(format!(
            "failed decoding: converting (v1.{kind}) to (audit.Policy): unknown conversion"
        )),
        (_, _, kind) => Err(format!(
            "failed decoding: no kind {} is registered for version {} in scheme {SCHEME:?}",
            quote(kind),
            quote(&api_version)
        )),
    }
}

fn policy(value: &Value, unknown: &mut Vec<String>) -> RawPolicy {
    let Some(map) = value.as_object() else {
        return RawPolicy::default();
    };
    note_unknown(
        map,
        "",
        &[
            "kind",
            "apiVersion",
            "metadata",
            "rules",
            "omitStages",
            "omitManagedFields",
        ],
        unknown,
    );
    let rules = match map.get("rules") {
        Some(Value::Array(rules)) => rules
            .iter()
            .enumerate()
            .map(|(i, rule)| policy_rule(rule, &format!("rules[{i}]."), unknown))
            .collect(),
        _ => Vec::new(),
    };
    RawPolicy {
        rules,
        omit_stages: strings(map, "omitStages"),
        omit_managed_fields: boolean(map, "omitManagedFields").unwrap_or(false),
    }
}

const RULE_FIELDS: &[&str] = &[
    "level",
    "users",
    "userGroups",
    "verbs",
    "resources",
    "namespaces",
    "nonResourceURLs",
    "omitStages",
    "omitManagedFields",
];

fn policy_rule(value: &Value, at: &str, unknown: &mut Vec<String>) -> RawRule {
    let Some(map) = value.as_object() else {
        return RawRule::default();
    };
    note_unknown(map, at, RULE_FIELDS, unknown);
    let resources = match map.get("resources") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, gr)| group_resources(gr, &format!("{at}resources[{i}]."), unknown))
            .collect(),
        _ => Vec::new(),
    };
    RawRule {
        level: string(map, "level"),
        users: strings(map, "users"),
        user_groups: strings(map, "userGroups"),
        verbs: strings(map, "verbs"),
        resources,
        namespaces: strings(map, "namespaces"),
        non_resource_urls: strings(map, "nonResourceURLs"),
        omit_stages: strings(map, "omitStages"),
        omit_managed_fields: boolean(map, "omitManagedFields"),
    }
}

fn group_resources(value: &Value, at: &str, unknown: &mut Vec<String>) -> RawGroupResources {
    let Some(map) = value.as_object() else {
        return RawGroupResources::default();
    };
    note_unknown(map, at, &["group", "resources", "resourceNames"], unknown);
    RawGroupResources {
        group: string(map, "group"),
        resources: strings(map, "resources"),
        resource_names: strings(map, "resourceNames"),
    }
}

/// The strict decoder's `unknown field "rules[0].bogus"` errors.
fn note_unknown(map: &Map<String, Value>, at: &str, known: &[&str], unknown: &mut Vec<String>) {
    for key in map.keys().filter(|k| !known.contains(&k.as_str())) {
        unknown.push(format!("unknown field \"{at}{key}\""));
    }
}

/// A string field (type-checked before): `null` and absent are `""`.
fn string(map: &Map<String, Value>, key: &str) -> String {
    map.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// A `[]string` field: `null` elements are `""`, as Go leaves them.
fn strings(map: &Map<String, Value>, key: &str) -> Vec<String> {
    match map.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => Vec::new(),
    }
}

fn boolean(map: &Map<String, Value>, key: &str) -> Option<bool> {
    map.get(key).and_then(Value::as_bool)
}
