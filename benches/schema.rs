//! Schema admission cost: prune + default + validate of a 1 KiB custom object against a
//! realistic schema (a Deployment-like spec with containers as a list-map, ports,
//! resources, labels, enums, patterns, formats and defaults, plus status conditions).
//!
//! Run: `cargo bench --bench schema`. Prints the median µs per object (copies of the object
//! are made outside the timed part) and the ratio to the 20 µs target, then the
//! cost of CEL validation rules (`rules`): per rule against the 1 µs target, and the
//! admission with rules against without (`-- rules`: that part only).

use std::hint::black_box;
use std::time::{Duration, Instant};

use crd_apiserver::schema::{Schema, default, prune, validate};
use serde_json::{Value, json};

#[path = "schema/rules.rs"]
mod rules;

fn schema() -> Value {
    let container = json!({
        "type": "object",
        "required": ["name", "image"],
        "properties": {
            "name": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
            "image": {"type": "string", "minLength": 1},
            "imagePullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"], "default": "IfNotPresent"},
            "args": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["containerPort"],
                "items": {
                    "type": "object",
                    "required": ["containerPort"],
                    "properties": {
                        "name": {"type": "string", "maxLength": 15},
                        "containerPort": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535},
                        "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"], "default": "TCP"}
                    }
                }
            },
            "resources": {
                "type": "object",
                "properties": {
                    "limits": {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+(m|Mi|Gi)?$"}},
                    "requests": {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+(m|Mi|Gi)?$"}}
                }
            }
        }
    });
    json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["selector", "template"],
                "properties": {
                    "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
                    "paused": {"type": "boolean"},
                    "strategy": {"type": "string", "enum": ["Recreate", "RollingUpdate"], "default": "RollingUpdate"},
                    "minReadySeconds": {"type": "integer", "minimum": 0},
                    "owner": {"type": "string", "format": "email"},
                    "selector": {"type": "object", "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
                    "template": {
                        "type": "object",
                        "properties": {
                            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 63}},
                            "containers": {
                                "type": "array", "minItems": 1, "maxItems": 16,
                                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                                "items": container
                            }
                        }
                    }
                }
            },
            "status": {
                "type": "object",
                "properties": {
                    "observedGeneration": {"type": "integer", "format": "int64"},
                    "readyReplicas": {"type": "integer"},
                    "conditions": {
                        "type": "array",
                        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                        "items": {
                            "type": "object",
                            "required": ["type", "status"],
                            "properties": {
                                "type": {"type": "string", "maxLength": 316},
                                "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                                "lastTransitionTime": {"type": "string", "format": "date-time"},
                                "reason": {"type": "string", "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},
                                "message": {"type": "string", "maxLength": 32768}
                            }
                        }
                    }
                }
            }
        }
    })
}

fn object() -> Value {
    json!({
        "apiVersion": "apps.example.com/v1", "kind": "Workload",
        "metadata": {"name": "frontend", "namespace": "default", "labels": {"app": "frontend", "tier": "web"},
                     "uid": "8f4b6c1e-3a2d-4e5f-9a8b-7c6d5e4f3a2b", "generation": 3,
                     "creationTimestamp": "2026-11-22T10:00:00Z"},
        "spec": {
            "replicas": 3,
            "owner": "team-web@example.com",
            "selector": {"matchLabels": {"app": "frontend"}},
            "template": {
                "labels": {"app": "frontend", "tier": "web"},
                "containers": [
                    {"name": "web", "image": "registry.example.com/frontend:1.4.2",
                     "args": ["--port=8080", "--log-level=info"],
                     "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
                     "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}},
                    {"name": "sidecar", "image": "registry.example.com/proxy:2.0.0",
                     "ports": [{"containerPort": 15001, "protocol": "TCP"}],
                     "unknownField": "pruned"}
                ]
            }
        },
        "status": {
            "observedGeneration": 3, "readyReplicas": 3,
            "conditions": [
                {"type": "Available", "status": "True", "lastTransitionTime": "2026-11-22T10:01:00Z", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
                {"type": "Progressing", "status": "True", "lastTransitionTime": "2026-11-22T10:00:30Z", "reason": "NewReplicaSetAvailable", "message": "ReplicaSet has successfully progressed."}
            ]
        }
    })
}

const BATCH: usize = 200;
const ROUNDS: usize = 1001;

/// Median over rounds of the mean time per object of `f` on a batch of fresh copies of
/// `template`, copied outside the timed part (so no clone cost is subtracted) and few
/// enough to stay in cache, as a just-decoded request body is.
fn per_object(template: &Value, mut f: impl FnMut(&mut Value)) -> Duration {
    // SCHEMA_BENCH_ROUNDS: fewer rounds, to profile under valgrind.
    let count = std::env::var("SCHEMA_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS)
        .max(1);
    let mut rounds: Vec<Duration> = (0..count)
        .map(|_| {
            let mut batch: Vec<Value> = (0..BATCH).map(|_| template.clone()).collect();
            let start = Instant::now();
            for object in &mut batch {
                f(object);
            }
            let elapsed = start.elapsed() / BATCH as u32;
            black_box(batch);
            elapsed
        })
        .collect();
    rounds.sort();
    rounds[count / 2]
}

fn main() {
    // `cargo bench --bench schema -- rules`: the rules part only.
    if !std::env::args().any(|a| a == "rules") {
        admission();
    }
    rules::report();
}

fn admission() {
    let schema = Schema::parse(&schema());
    let template = object();
    let size = serde_json::to_vec(&template).map(|b| b.len()).unwrap_or(0);
    let mut errors = 0;
    let admit = per_object(&template, |o| {
        prune::prune(o, &schema);
        default::default(o, &schema);
        errors = validate::validate(&schema, o).len();
    });
    let prune_only = per_object(&template, |o| {
        black_box(prune::prune(o, &schema));
    });
    let mut defaulted = template.clone();
    prune::prune(&mut defaulted, &schema);
    default::default(&mut defaulted, &schema);
    let validate_only = per_object(&defaulted, |o| {
        black_box(validate::validate(&schema, o));
    });
    let ratchet = per_object(&defaulted, |o| {
        black_box(validate::validate_update(&schema, o, &defaulted));
    });
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "schema admission of a {size}-byte object ({errors} errors), median of {ROUNDS} rounds of {BATCH}:"
    );
    println!(
        "  {:<44} {:>8.2} µs",
        "prune + default + validate",
        us(admit)
    );
    println!("  {:<44} {:>8.2} µs", "  of which prune", us(prune_only));
    println!(
        "  {:<44} {:>8.2} µs",
        "  of which validate",
        us(validate_only)
    );
    println!(
        "  {:<44} {:>8.2} µs",
        "validate_update (unchanged, ratcheting)",
        us(ratchet)
    );
    println!(
        "  target 20 µs per object: {:.2}x of target",
        us(admit) / 20.0
    );
}
