//! The OpenAPI v2 (swagger) document: every served CRD version built like
//! apiextensions-apiserver `BuildOpenAPIV2` (v2-converted schemas, defaults pruned) and
//! merged into one spec, with kube-openapi's shared parameters: every parameter but
//! `name`, `dryRun`, `fieldValidation` and non-meta bodies becomes a reference to
//! `#/parameters/<name>-<hash>`, the hash being FNV-1 64 of the parameter's Go JSON.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{Map, Value, json};

use super::params::Param;
use super::paths::{self, Body, Operation, PRODUCES, PathItem};
use super::published::{self, Flavor};
use super::v2_conversion::prune_defaults;
use super::{ServedPair, library_closure};
use crate::gofmt::json_string;

/// The document for every served version; `version` is the server's git version.
pub(super) fn document(versions: &[ServedPair<'_>], version: &str) -> Value {
    let mut shared = BTreeMap::new();
    let mut paths = Map::new();
    let mut definitions = BTreeMap::new();
    for (r, v) in versions {
        for (path, item) in paths::paths(r, v) {
            paths.insert(path, path_item(&item, &mut shared));
        }
        let kind = published::model_name(&r.group, &v.name, &r.kind);
        let list = published::model_name(&r.group, &v.name, &r.list_kind);
        definitions.insert(kind, published::kind_schema(r, v, Flavor::V2));
        definitions.insert(list, published::list_schema(r, v));
    }
    if !versions.is_empty() {
        let scale = versions.iter().any(|(_, v)| v.scale.is_some());
        definitions.extend(library_closure(scale));
    }
    definitions.values_mut().for_each(prune_defaults);
    let mut doc = json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": version},
        "paths": paths,
        "definitions": definitions,
        "securityDefinitions": {"BearerToken": {
            "type": "apiKey", "name": "authorization", "in": "header",
            "description": "Bearer Token authentication",
        }},
        "security": [{"BearerToken": []}],
    });
    if !shared.is_empty() {
        doc["parameters"] = json!(shared);
    }
    doc
}

/// A parameter as kube-openapi's v2 builder writes it.
enum Parameter<'a> {
    Simple(&'a Param),
    Body(&'a Body),
}

impl Parameter<'_> {
    fn value(&self) -> Value {
        match self {
            Parameter::Simple(p) => {
                let mut out = json!({"uniqueItems": true, "type": p.type_,
                    "description": p.description, "name": p.name, "in": p.location.as_str()});
                if p.required() {
                    out["required"] = json!(true);
                }
                out
            }
            Parameter::Body(b) => {
                let mut out = json!({"name": "body", "in": "body",
                    "schema": published::definition_ref(&b.model)});
                if b.required {
                    out["required"] = json!(true);
                }
                out
            }
        }
    }

    /// Go's `json.Marshal` of the parameter (field order, HTML escaping): what kube hashes.
    fn go_json(&self) -> String {
        let s = json_string;
        match self {
            Parameter::Simple(p) => format!(
                r#"{{"uniqueItems":true,"type":{},"description":{},"name":{},"in":{}{}}}"#,
                s(p.type_),
                s(&p.description),
                s(p.name),
                s(p.location.as_str()),
                if p.required() {
                    r#","required":true"#
                } else {
                    ""
                }
            ),
            Parameter::Body(b) => format!(
                r#"{{"name":"body","in":"body",{}"schema":{{"$ref":{}}}}}"#,
                if b.required {
                    r#""required":true,"#
                } else {
                    ""
                },
                s(&format!("#/definitions/{}", b.model))
            ),
        }
    }

    /// `collectSharedParameters`: `name`, `fieldValidation` and `dryRun` stay inline (kubectl
    /// looked for the last two), as do bodies of the kind's own schema.
    fn shared(&self) -> bool {
        match self {
            Parameter::Simple(p) => !matches!(p.name, "name" | "fieldValidation" | "dryRun"),
            Parameter::Body(b) => b.model.starts_with("io.k8s.apimachinery"),
        }
    }

    /// The parameter itself, or a reference to its shared copy (added to `shared`).
    fn render(&self, shared: &mut BTreeMap<String, Value>) -> Value {
        if !self.shared() {
            return self.value();
        }
        let name = format!("{}-{}", self.name(), hash(&self.go_json()));
        shared.entry(name.clone()).or_insert_with(|| self.value());
        json!({"$ref": format!("#/parameters/{name}")})
    }

    fn name(&self) -> &str {
        match self {
            Parameter::Simple(p) => p.name,
            Parameter::Body(_) => "body",
        }
    }
}

/// kube-openapi `base64Hash`: URL-safe base64 of the first 6 bytes of FNV-1 64.
fn hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        h ^= u64::from(b);
    }
    base64::engine::general_purpose::URL_SAFE.encode(&h.to_be_bytes()[..6])
}

fn path_item(item: &PathItem, shared: &mut BTreeMap<String, Value>) -> Value {
    let mut out = Map::new();
    if !item.params.is_empty() {
        let params: Vec<Value> = item
            .params
            .iter()
            .map(|p| Parameter::Simple(p).render(shared))
            .collect();
        out.insert("parameters".into(), Value::Array(params));
    }
    for op in &item.operations {
        out.insert(op.method.into(), operation(op, shared));
    }
    Value::Object(out)
}

fn operation(op: &Operation, shared: &mut BTreeMap<String, Value>) -> Value {
    let mut params: Vec<Parameter<'_>> = op.params.iter().map(Parameter::Simple).collect();
    if let Some(body) = &op.body {
        params.push(Parameter::Body(body));
    }
    params.sort_by(|a, b| a.name().cmp(b.name()));
    let mut responses = Map::new();
    for (code, message, model) in &op.responses {
        let schema = published::definition_ref(model);
        responses.insert(
            code.to_string(),
            json!({"description": message, "schema": schema}),
        );
    }
    responses.insert("401".into(), json!({"description": "Unauthorized"}));
    let mut out = json!({
        "description": op.description,
        "consumes": op.consumes,
        "produces": PRODUCES,
        "schemes": ["https"],
        "tags": [op.tag],
        "operationId": op.operation_id,
        "responses": responses,
        "x-kubernetes-action": op.action,
        "x-kubernetes-group-version-kind": op.group_version_kind,
    });
    if !params.is_empty() {
        let rendered: Vec<Value> = params.iter().map(|p| p.render(shared)).collect();
        out["parameters"] = Value::Array(rendered);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::openapi::params;

    #[test]
    fn shared_parameter_names_match_kube_swagger() {
        let delete = Body {
            model: "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions".into(),
            required: false,
        };
        let patch = Body {
            model: "io.k8s.apimachinery.pkg.apis.meta.v1.Patch".into(),
            required: true,
        };
        let pretty = params::pretty();
        let namespace = params::namespace();
        let cases = [
            ("pretty", Parameter::Simple(&pretty), "pretty-tJGM1-ng"),
            (
                "namespace",
                Parameter::Simple(&namespace),
                "namespace-vgWSWtn3",
            ),
            ("delete body", Parameter::Body(&delete), "body-2Y1dVQaQ"),
            ("patch body", Parameter::Body(&patch), "body-78PwaGsr"),
        ];
        for (case, param, want) in cases {
            assert_eq!(
                format!("{}-{}", param.name(), hash(&param.go_json())),
                want,
                "{case}"
            );
        }
    }

    #[test]
    fn shared_kube_exclusions_stay_inline() {
        let name = params::name("CronTab");
        let options = params::options("patch");
        let kind_body = Body {
            model: "com.example.stable.v1.CronTab".into(),
            required: true,
        };
        assert!(!Parameter::Simple(&name).shared());
        assert!(!Parameter::Body(&kind_body).shared());
        let inline: Vec<&str> = options
            .iter()
            .filter(|p| !Parameter::Simple(p).shared())
            .map(|p| p.name)
            .collect();
        assert_eq!(inline, ["dryRun", "fieldValidation"]);
    }
}
