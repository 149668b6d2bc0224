//! Object names: kube's generateName suffix and the checks custom resource names get
//! (`NameIsDNSSubdomain` plus the path-segment rules).

use rand::Rng;
use serde_json::json;

use super::object as obj;
use crate::crd::check::is_dns1123_subdomain;
use crate::error::FieldError;

/// apiserver's SimpleNameGenerator alphabet: no vowels, no confusable characters.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
const RANDOM_LENGTH: usize = 5;
/// 63 - 5: the base is cut so the generated name stays a valid label length.
const MAX_GENERATED_BASE: usize = 58;

/// `base` (cut to 58 characters) followed by 5 random characters.
pub fn generate_name(base: &str) -> String {
    let base: String = base.chars().take(MAX_GENERATED_BASE).collect();
    let mut rng = rand::rng();
    let suffix: String = (0..RANDOM_LENGTH)
        .map(|_| ALPHANUMS[rng.random_range(0..ALPHANUMS.len())] as char)
        .collect();
    format!("{base}{suffix}")
}

/// Path-segment rules every object name obeys (`IsValidPathSegmentName`).
fn path_segment_errors(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    let mut errors = Vec::new();
    for illegal in ["/", "%"] {
        if name.contains(illegal) {
            errors.push(format!("may not contain '{illegal}'"));
        }
    }
    errors
}

/// Checks `metadata.name` as kube checks custom resource names.
pub fn validate_object_meta(object: &serde_json::Value) -> Result<(), Vec<FieldError>> {
    let name = obj::name(object);
    let mut errors: Vec<FieldError> = Vec::new();
    for message in path_segment_errors(name)
        .into_iter()
        .chain(is_dns1123_subdomain(name))
    {
        errors.push(FieldError::invalid("metadata.name", &json!(name), &message));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_name_suffix_uses_kube_alphabet_and_cuts_base() {
        let name = generate_name(&"a".repeat(70));
        assert_eq!(name.len(), 63);
        assert!(name[58..].bytes().all(|b| ALPHANUMS.contains(&b)));
    }

    #[test]
    fn validate_object_meta_names() {
        let cases = [
            ("ok", "my-new-cron-object", true),
            ("dots", "a.b.c", true),
            ("upper", "Foo", false),
            ("slash", "a/b", false),
            ("dotdot", "..", false),
            ("percent", "a%b", false),
        ];
        for (case, name, ok) in cases {
            let o = json!({"metadata": {"name": name}});
            assert_eq!(validate_object_meta(&o).is_ok(), ok, "{case}");
        }
    }
}
