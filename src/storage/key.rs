//! Storage keys: `<prefix>/<group>/<plural>/<namespace>/<name>` as kube lays them out.

/// Builds and splits keys under one configured prefix (default `/registry`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyLayout {
    prefix: String,
}

impl KeyLayout {
    pub fn new(prefix: &str) -> Self {
        KeyLayout {
            prefix: prefix.trim_end_matches('/').to_string(),
        }
    }

    /// The prefix every object of one resource lives under, ending in `/`.
    pub fn resource_prefix(&self, group: &str, plural: &str) -> String {
        format!("{}/{group}/{plural}/", self.prefix)
    }

    /// The prefix of one namespace's objects (or of all, for cluster scope), ending in `/`.
    pub fn collection_prefix(&self, group: &str, plural: &str, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) => format!("{}{ns}/", self.resource_prefix(group, plural)),
            None => self.resource_prefix(group, plural),
        }
    }

    /// The key of one object.
    pub fn object_key(
        &self,
        group: &str,
        plural: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> String {
        format!("{}{name}", self.collection_prefix(group, plural, namespace))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_key_namespaced_and_cluster_match_kube_layout() {
        let k = KeyLayout::new("/registry/");
        assert_eq!(
            k.object_key("stable.example.com", "crontabs", Some("default"), "x"),
            "/registry/stable.example.com/crontabs/default/x"
        );
        assert_eq!(
            k.object_key("g.io", "things", None, "y"),
            "/registry/g.io/things/y"
        );
        assert_eq!(
            k.collection_prefix("g.io", "things", Some("ns")),
            "/registry/g.io/things/ns/"
        );
    }
}
