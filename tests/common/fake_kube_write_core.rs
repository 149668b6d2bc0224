//! The fake kube-apiserver's writes as plain data: given the object stored now (if any) and
//! a create, update, patch or delete of one [`Resource`] (or its `/status`), what to store
//! and what to answer, or kube's failure Status — AlreadyExists, Conflict on a stale
//! resourceVersion or a failed delete precondition, NotFound, Invalid for a missing name.
//! Server metadata (uid, creationTimestamp, generation, managedFields) is set as kube sets it;
//! an object with finalizers is marked deleted (deletionTimestamp) instead of removed.

use serde_json::{Value, json};

use super::collections::Resource;
use super::errors::{self, Cause, Failure};
use super::fields::{self, Entry, Scope, Writer};
use super::host;

/// A patch's body, by content type.
#[derive(Clone, Debug)]
pub enum Patch {
    /// `application/merge-patch+json` (also used for strategic merge patches).
    Merge(Value),
    /// `application/json-patch+json`.
    Json(Value),
    /// `application/apply-patch+yaml`.
    Apply { body: Value, force: bool },
}

/// The delete options' preconditions.
#[derive(Clone, Debug, Default)]
pub struct Preconditions {
    pub uid: Option<String>,
    pub resource_version: Option<String>,
}

#[derive(Clone, Debug)]
pub enum Op {
    Create(Value),
    Update(Value),
    Patch(Patch),
    Delete(Preconditions),
}

/// What a write does.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Store the object (its resourceVersion set on commit) and answer it with `code`.
    Store { object: Value, code: u16 },
    /// Remove the object and answer kube's Success Status (or the object, when `object`).
    Remove { answer_object: bool },
    /// Nothing changes: answer the object as it is.
    Unchanged(Value),
}

/// One write: the resource, whether it is the `/status` subresource, the key, the writer.
pub struct Write<'a> {
    pub resource: &'a Resource,
    pub status: bool,
    pub namespace: Option<&'a str>,
    /// The name on the URL (none for a create).
    pub name: Option<&'a str>,
    pub writer: &'a Writer,
    pub now: &'a str,
}

impl Write<'_> {
    /// The field scope of this write.
    pub fn scope(resource: &Resource, status: bool) -> Scope {
        match (resource.status, status) {
            (_, true) => Scope::Status,
            (true, false) => Scope::Spec,
            (false, false) => Scope::Object,
        }
    }

    fn named(&self) -> &str {
        self.name.unwrap_or_default()
    }

    /// The name a create gets: `metadata.name`, or `generateName` plus five random characters.
    pub fn create_name(&self, object: &Value) -> Result<String, Failure> {
        let meta = &object["metadata"];
        match (meta["name"].as_str(), meta["generateName"].as_str()) {
            (Some(name), _) if !name.is_empty() => Ok(name.to_string()),
            (_, Some(prefix)) if !prefix.is_empty() => Ok(format!("{prefix}{}", random_suffix())),
            _ => Err(errors::invalid(
                self.resource.kind,
                self.resource.group,
                "",
                &[Cause {
                    kind: "FieldValueRequired",
                    field: "metadata.name",
                    body: "Required value: name or generateName is required".into(),
                }],
            )),
        }
    }

    /// What `op` does given the object stored now (an object that is no JSON object, or
    /// whose metadata is none, is kube's 400).
    pub fn decide(&self, old: Option<&Value>, op: Op) -> Result<Decision, Failure> {
        match (op, old) {
            (Op::Create(object), None) => self.create(object, true),
            (Op::Create(object), Some(_)) => {
                let name = self.create_name(&object)?;
                Err(errors::already_exists(self.resource, &name))
            }
            (Op::Patch(Patch::Apply { body, force }), old) => self.apply(old, body, force),
            // kube's lease and event strategies allow create on update.
            (Op::Update(mut object), None) if host::creates_on_update(self.resource) => {
                object["metadata"]["name"] = json!(self.named());
                self.create(object, true)
            }
            (_, None) => Err(errors::not_found(self.resource, self.named())),
            (Op::Update(object), Some(old)) => self.update(old, object, None),
            (Op::Patch(Patch::Merge(patch)), Some(old)) => {
                let mut patched = old.clone();
                json_patch::merge(&mut patched, &patch);
                self.update(old, patched, None)
            }
            (Op::Patch(Patch::Json(ops)), Some(old)) => {
                let ops: json_patch::Patch =
                    serde_json::from_value(ops).map_err(|e| errors::bad_request(&e.to_string()))?;
                let mut patched = old.clone();
                json_patch::patch(&mut patched, &ops).map_err(|e| {
                    errors::invalid(self.resource.kind, self.resource.group, self.named(), &[])
                        .with_message(&e.to_string())
                })?;
                self.update(old, patched, None)
            }
            (Op::Delete(pre), Some(old)) => self.delete(old, &pre),
        }
    }

    /// A new object: server metadata set, status dropped where it is a subresource,
    /// the writer's `Update` entry (unless `track` is off: an apply set the entries).
    fn create(&self, mut object: Value, track: bool) -> Result<Decision, Failure> {
        shape(&object)?;
        let name = self.create_name(&object)?;
        self.check_namespace(&object)?;
        object["kind"] = json!(self.resource.kind);
        object["apiVersion"] = json!(self.resource.api_version());
        if self.resource.status {
            object.as_object_mut().map(|o| o.remove("status"));
        }
        host::string_data(self.resource, &mut object);
        let meta = &mut object["metadata"];
        meta["name"] = json!(name);
        match (self.resource.namespaced, self.namespace) {
            (true, Some(ns)) => meta["namespace"] = json!(ns),
            _ => {
                meta.as_object_mut().map(|m| m.remove("namespace"));
            }
        }
        meta["uid"] = json!(uuid::Uuid::new_v4().to_string());
        meta["creationTimestamp"] = json!(self.now);
        meta["generation"] = json!(1);
        for server_set in [
            "resourceVersion",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            meta.as_object_mut().map(|m| m.remove(server_set));
        }
        if track {
            let given = fields::entries(&object);
            let entries = fields::track_update(None, &object, given, self.writer);
            fields::set_entries(&mut object, &entries);
        }
        Ok(Decision::Store { object, code: 201 })
    }

    fn check_namespace(&self, object: &Value) -> Result<(), Failure> {
        let given = object["metadata"]["namespace"].as_str().unwrap_or_default();
        match (self.resource.namespaced, self.namespace) {
            (true, Some(ns)) if !given.is_empty() && given != ns => Err(errors::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            )),
            _ => Ok(()),
        }
    }

    fn check_version(&self, old: &Value, new: &Value) -> Result<(), Failure> {
        let given = new["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        let stored = old["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        match !given.is_empty() && given != stored {
            true => Err(errors::conflict(
                self.resource,
                self.named(),
                errors::OPTIMISTIC_LOCK,
            )),
            false => Ok(()),
        }
    }

    /// An update of the object (`entries`: already computed by an apply).
    fn update(
        &self,
        old: &Value,
        mut new: Value,
        entries: Option<Vec<Entry>>,
    ) -> Result<Decision, Failure> {
        shape(&new)?;
        let given = new["metadata"]["name"].as_str().unwrap_or(self.named());
        if given != self.named() {
            let message = format!(
                "the name of the object ({given}) does not match the name on the URL ({})",
                self.named()
            );
            return Err(errors::bad_request(&message));
        }
        self.check_namespace(&new)?;
        self.check_version(old, &new)?;
        new = self.keep_unwritten(old, new);
        host::string_data(self.resource, &mut new);
        let entries = entries.unwrap_or_else(|| {
            let given = match new["metadata"].get("managedFields") {
                Some(listed) if *listed != old["metadata"]["managedFields"] => {
                    fields::entries(&new)
                }
                _ => fields::entries(old),
            };
            fields::track_update(Some(old), &new, given, self.writer)
        });
        fields::set_entries(&mut new, &entries);
        let content = |o: &Value| {
            let mut o = o.clone();
            o.as_object_mut().map(|m| {
                m.remove("metadata");
                m.remove("status")
            });
            o
        };
        let was = old["metadata"]["generation"].as_i64().unwrap_or(1);
        new["metadata"]["generation"] = json!(was + i64::from(content(old) != content(&new)));
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        let finalized = new["metadata"]["deletionTimestamp"].is_string()
            && new["metadata"]["finalizers"]
                .as_array()
                .is_none_or(Vec::is_empty);
        Ok(match (new == *old, finalized) {
            (true, _) => Decision::Unchanged(old.clone()),
            (false, true) => Decision::Remove {
                answer_object: true,
            },
            (false, false) => Decision::Store {
                object: new,
                code: 200,
            },
        })
    }

    /// `new` with what this write may not change taken from `old`: server metadata, the
    /// status (main resource) or everything but the status (`/status`).
    fn keep_unwritten(&self, old: &Value, mut new: Value) -> Value {
        if self.status {
            let status = new.get("status").cloned();
            let entries = new["metadata"].get("managedFields").cloned();
            new = old.clone();
            match status {
                Some(status) => new["status"] = status,
                None => {
                    new.as_object_mut().map(|o| o.remove("status"));
                }
            }
            match entries {
                Some(listed) => new["metadata"]["managedFields"] = listed,
                None => {
                    new["metadata"]
                        .as_object_mut()
                        .map(|m| m.remove("managedFields"));
                }
            }
            return new;
        }
        new["kind"] = json!(self.resource.kind);
        new["apiVersion"] = json!(self.resource.api_version());
        if self.resource.status {
            match old.get("status") {
                Some(status) => new["status"] = status.clone(),
                None => {
                    new.as_object_mut().map(|o| o.remove("status"));
                }
            }
        }
        let meta = &mut new["metadata"];
        for kept in [
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            match old["metadata"].get(kept) {
                Some(value) => meta[kept] = value.clone(),
                None => {
                    meta.as_object_mut().map(|m| m.remove(kept));
                }
            }
        }
        new
    }

    fn apply(&self, old: Option<&Value>, body: Value, force: bool) -> Result<Decision, Failure> {
        shape(&body)?;
        let given = old.map(fields::entries).unwrap_or_default();
        let (merged, entries) = fields::apply(old, &body, given, self.writer, force)
            .map_err(|c| errors::apply_conflict(&c))?;
        let Some(old) = old else {
            let mut created = merged;
            created["metadata"]["name"] = json!(self.named());
            fields::set_entries(&mut created, &entries);
            return self.create(created, false);
        };
        let mut merged = merged;
        merged["metadata"]["resourceVersion"] = body["metadata"]
            .get("resourceVersion")
            .cloned()
            .unwrap_or(Value::Null);
        self.update(old, merged, Some(entries))
    }

    fn delete(&self, old: &Value, pre: &Preconditions) -> Result<Decision, Failure> {
        let meta = &old["metadata"];
        let text = |key: &str| meta[key].as_str().unwrap_or_default().to_string();
        let checks = [
            ("UID", pre.uid.clone(), text("uid")),
            (
                "ResourceVersion",
                pre.resource_version.clone(),
                text("resourceVersion"),
            ),
        ];
        for (what, wanted, stored) in checks {
            if let Some(wanted) = wanted.filter(|w| *w != stored) {
                let why = format!(
                    "Precondition failed: {what} in precondition: {wanted}, {what} in object meta: {stored}"
                );
                return Err(errors::conflict(self.resource, self.named(), &why));
            }
        }
        let finalizers = meta["finalizers"].as_array().is_some_and(|f| !f.is_empty());
        Ok(match (finalizers, meta["deletionTimestamp"].is_string()) {
            (false, _) => Decision::Remove {
                answer_object: false,
            },
            (true, true) => Decision::Unchanged(old.clone()),
            (true, false) => {
                let mut marked = old.clone();
                marked["metadata"]["deletionTimestamp"] = json!(self.now);
                marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
                Decision::Store {
                    object: marked,
                    code: 200,
                }
            }
        })
    }
}

/// An object a write can stamp: a JSON object whose metadata, if any, is one.
pub fn shape(object: &Value) -> Result<(), Failure> {
    let metadata = object.get("metadata").unwrap_or(&Value::Null);
    match (
        object.is_object(),
        metadata.is_object() || metadata.is_null(),
    ) {
        (true, true) => Ok(()),
        _ => Err(errors::bad_request(
            "the body of the request must be an object whose metadata is an object",
        )),
    }
}

/// kube's five characters of a generated name (`k8s.io/apiserver` names: no vowels, no
/// look-alikes).
fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes[..5]
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect()
}
