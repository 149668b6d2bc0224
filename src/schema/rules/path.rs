//! Where the rules walk is in the object: a chain of borrowed steps on the stack,
//! printed as kube's `field.Path` only when a rule reports an error (most objects pass,
//! so no path text is built for them).

/// One node's position: its parent's and the step from it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Path<'p> {
    Root,
    /// A property (`Child`): `spec.replicas`.
    Field(&'p Path<'p>, &'p str),
    /// An additionalProperties key (`Key`): `labels[app]`.
    Key(&'p Path<'p>, &'p str),
    /// A list item (`Index`): `containers[0]`.
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    pub fn is_root(&self) -> bool {
        matches!(self, Path::Root)
    }

    /// `field.Path.String()`: empty at the root.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Field(parent, name) => {
                parent.write(out);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Path::Key(parent, key) => {
                parent.write(out);
                out.push('[');
                out.push_str(key);
                out.push(']');
            }
            Path::Index(parent, i) => {
                parent.write(out);
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Path;

    #[test]
    fn render_paths_print_as_kube_field_paths() {
        let root = Path::Root;
        let spec = Path::Field(&root, "spec");
        let labels = Path::Field(&spec, "labels");
        let key = Path::Key(&labels, "app");
        let items = Path::Field(&spec, "items");
        let item = Path::Index(&items, 2);
        let nested = Path::Field(&item, "name");
        let top_item = Path::Index(&root, 0);
        let cases = [
            (&root, ""),
            (&spec, "spec"),
            (&key, "spec.labels[app]"),
            (&nested, "spec.items[2].name"),
            (&top_item, "[0]"),
        ];
        for (path, want) in cases {
            assert_eq!(path.render(), want);
        }
    }
}
