//! Kube's version priority (k8s.io/apimachinery `CompareKubeAwareVersionStrings`): the
//! order discovery lists a group's versions in and the preferred version is chosen by.

/// Kube's version priority: GA > beta > alpha, higher numbers first, then
/// non-kube-like versions alphabetically (k8s.io/apimachinery `CompareKubeAwareVersionStrings`).
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    version_key(a).cmp(&version_key(b))
}

/// Sort key: (class, -major, -minor, name) where class 0 = GA, 1 = beta, 2 = alpha, 3 = other.
fn version_key(v: &str) -> (u8, i64, i64, String) {
    let Some(rest) = v.strip_prefix('v') else {
        return (3, 0, 0, v.to_string());
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(major) = digits.parse::<i64>() else {
        return (3, 0, 0, v.to_string());
    };
    if digits.starts_with('0') {
        return (3, 0, 0, v.to_string());
    }
    let tail = &rest[digits.len()..];
    let (class, minor_text) = if tail.is_empty() {
        return (0, -major, 0, String::new());
    } else if let Some(m) = tail.strip_prefix("beta") {
        (1, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (2, m)
    } else {
        return (3, 0, 0, v.to_string());
    };
    match minor_text.parse::<i64>() {
        Ok(minor) if !minor_text.starts_with('0') => (class, -major, -minor, String::new()),
        _ => (3, 0, 0, v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_versions_kube_order_sorts_ga_beta_alpha_other() {
        let mut v = vec![
            "foo1",
            "v1alpha1",
            "v11alpha2",
            "v1",
            "v2",
            "v1beta1",
            "v12alpha1",
            "v10beta3",
            "foo10",
            "v10",
            "v3beta1",
            "v10",
            "v2beta1",
        ];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            v,
            vec![
                "v10",
                "v10",
                "v2",
                "v1",
                "v10beta3",
                "v3beta1",
                "v2beta1",
                "v1beta1",
                "v12alpha1",
                "v11alpha2",
                "v1alpha1",
                "foo1",
                "foo10"
            ]
        );
    }
}
