//! CEL rule cost: the seeds' CronTab (three simple rules on `spec`) and the Workload
//! schema of this bench with 20 realistic rules (root, nested objects, list-map items,
//! map values; comparisons, `has()`, `size()`, string functions, constant-pattern
//! `matches`, `all`/`exists`, set membership, one transition rule), on an object of
//! five containers. Reports the rules pass per object, ns per rule evaluation (against
//! the 1 µs per simple rule) and the full admission with rules against without.

use std::hint::black_box;
use std::time::Duration;

use crd_apiserver::schema::rules::{self, Rules};
use crd_apiserver::schema::{Schema, default, prune, validate};
use serde_json::{Value, json};

use crate::per_object;

/// Where a rule sits (a path of `properties/<name>`, `items`, `additionalProperties`
/// steps from the root schema), the rule, and whether it is simple (one comparison,
/// `has()` or `size()`).
type RuleAt = (&'static str, &'static str, bool);

const CRONTAB_RULES: [RuleAt; 3] = [
    ("properties/spec", "self.minReplicas <= self.replicas", true),
    ("properties/spec", "self.replicas <= self.maxReplicas", true),
    ("properties/spec", "has(self.cronSpec)", true),
];

const SPEC: &str = "properties/spec";
const LABELS: &str = "properties/spec/properties/template/properties/labels";
const CONTAINERS: &str = "properties/spec/properties/template/properties/containers";
const CONTAINER: &str = "properties/spec/properties/template/properties/containers/items";
const PORT: &str =
    "properties/spec/properties/template/properties/containers/items/properties/ports/items";

const WORKLOAD_RULES: [RuleAt; 20] = [
    ("", "self.metadata.name.size() <= 63", true),
    ("", "self.kind == 'Workload'", true),
    (SPEC, "self.replicas <= 100", true),
    (SPEC, "has(self.selector)", true),
    (
        SPEC,
        "self.strategy == 'RollingUpdate' || self.replicas <= 1",
        false,
    ),
    (
        SPEC,
        "!has(self.minReadySeconds) || self.minReadySeconds <= 3600",
        false,
    ),
    (
        "properties/spec/properties/selector",
        "self == oldSelf",
        false,
    ),
    (
        "properties/spec/properties/owner",
        "self.endsWith('@example.com')",
        false,
    ),
    (LABELS, "size(self) <= 64", true),
    (LABELS, "'app' in self", true),
    (
        "properties/spec/properties/template/properties/labels/additionalProperties",
        "self.matches('^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$')",
        false,
    ),
    (CONTAINERS, "size(self) <= 16", true),
    (CONTAINERS, "self.exists(c, c.name == 'web')", false),
    (CONTAINER, "size(self.name) > 0", true),
    (CONTAINER, "has(self.imagePullPolicy)", true),
    (CONTAINER, "self.image.contains(':')", false),
    (
        CONTAINER,
        "self.image.matches('^[a-z0-9.-]+(/[a-z0-9._-]+)+:[A-Za-z0-9._-]+$')",
        false,
    ),
    (
        CONTAINER,
        "!has(self.ports) || self.ports.all(p, p.containerPort > 1024)",
        false,
    ),
    (PORT, "self.containerPort <= 65535", true),
    (
        "properties/status/properties/conditions/items",
        "self.status in ['True', 'False', 'Unknown']",
        false,
    ),
];

fn crontab_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["minReplicas", "replicas", "maxReplicas"],
                "properties": {
                    "cronSpec": {"type": "string"},
                    "image": {"type": "string"},
                    "minReplicas": {"type": "integer"},
                    "replicas": {"type": "integer"},
                    "maxReplicas": {"type": "integer"}
                }
            }
        }
    })
}

fn crontab() -> Value {
    json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "my-new-cron-object", "namespace": "default",
                     "uid": "8f4b6c1e-3a2d-4e5f-9a8b-7c6d5e4f3a2b", "generation": 1,
                     "creationTimestamp": "2026-11-22T10:00:00Z"},
        "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image",
                 "minReplicas": 0, "replicas": 3, "maxReplicas": 10}
    })
}

/// The bench's Workload object with five containers (a list-map keyed by name).
fn workload() -> Value {
    let mut object = crate::object();
    let container = |name: &str, port: u16| {
        json!({"name": name, "image": format!("registry.example.com/{name}:1.0.{port}"),
               "ports": [{"name": "http", "containerPort": port}],
               "resources": {"limits": {"cpu": "200m"}, "requests": {"cpu": "50m"}}})
    };
    if let Some(Value::Array(containers)) = object.pointer_mut("/spec/template/containers") {
        containers.push(container("logger", 8125));
        containers.push(container("cache", 6379));
        containers.push(container("auth", 4180));
    }
    object
}

/// `schema` with `rules` added (only the simple ones when `simple_only`).
fn with_rules(mut schema: Value, rules: &[RuleAt], simple_only: bool) -> Value {
    for (at, rule, simple) in rules {
        if simple_only && !simple {
            continue;
        }
        let pointer = if at.is_empty() {
            String::new()
        } else {
            format!("/{at}")
        };
        if let Some(Value::Object(node)) = schema.pointer_mut(&pointer) {
            let list = node
                .entry("x-kubernetes-validations")
                .or_insert_with(|| json!([]));
            if let Value::Array(list) = list {
                list.push(json!({"rule": rule}));
            }
        }
    }
    schema
}

/// How many values of `object` the schema node at `at` applies to.
fn instances(at: &str, object: &Value) -> usize {
    let mut values = vec![object];
    let mut steps = at.split('/').filter(|s| !s.is_empty());
    while let Some(step) = steps.next() {
        values = match step {
            "properties" => {
                let name = steps.next().unwrap_or_default();
                values.iter().filter_map(|v| v.get(name)).collect()
            }
            "items" => values
                .iter()
                .filter_map(|v| v.as_array())
                .flatten()
                .collect(),
            _ => values
                .iter()
                .filter_map(|v| v.as_object())
                .flat_map(|m| m.values())
                .collect(),
        };
    }
    values.iter().filter(|v| !v.is_null()).count()
}

/// Rule evaluations on create (transition rules do not run), all and simple ones.
fn evaluations(rules: &[RuleAt], object: &Value) -> (usize, usize) {
    let create: Vec<&RuleAt> = rules.iter().filter(|r| !r.1.contains("oldSelf")).collect();
    let all = create.iter().map(|r| instances(r.0, object)).sum();
    let simple = create
        .iter()
        .filter(|r| r.2)
        .map(|r| instances(r.0, object))
        .sum();
    (all, simple)
}

struct Case {
    name: &'static str,
    schema: Schema,
    rules: Rules,
    simple: Rules,
    object: Value,
    evaluations: (usize, usize),
}

impl Case {
    fn new(name: &'static str, schema: Value, rules: &[RuleAt], object: Value) -> Case {
        let evaluations = evaluations(rules, &object);
        let parsed = Schema::parse(&with_rules(schema.clone(), rules, false));
        Case {
            name,
            rules: Rules::compile(&parsed),
            simple: Rules::compile(&Schema::parse(&with_rules(schema, rules, true))),
            schema: parsed,
            object,
            evaluations,
        }
    }

    /// prune + default + validate, then the rules unless schema errors block them.
    fn admit(&self, o: &mut Value, with_rules: bool) -> usize {
        prune::prune(o, &self.schema);
        default::default(o, &self.schema);
        let mut errors = validate::validate(&self.schema, o);
        if with_rules && !rules::blocked(&errors) {
            errors.extend(self.rules.validate(&self.schema, o, None).errors);
        }
        errors.len()
    }

    fn report(&self) {
        let size = serde_json::to_vec(&self.object).map_or(0, |b| b.len());
        let without = per_object(&self.object, |o| {
            black_box(self.admit(o, false));
        });
        let mut errors = 0;
        let with = per_object(&self.object, |o| errors = self.admit(o, true));
        let mut admitted = self.object.clone();
        self.admit(&mut admitted, false);
        let mut warnings = 0;
        let pass = per_object(&admitted, |o| {
            let findings = self.rules.validate(&self.schema, o, None);
            warnings = findings.warnings.len();
            black_box(findings);
        });
        let simple_pass = per_object(&admitted, |o| {
            black_box(self.simple.validate(&self.schema, o, None));
        });
        let update = per_object(&admitted, |o| {
            black_box(self.rules.validate(&self.schema, o, Some(&admitted)));
        });
        let (all, simple) = self.evaluations;
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        let ns = |d: Duration, n: usize| d.as_secs_f64() * 1e9 / n.max(1) as f64;
        println!(
            "{} ({size} bytes, {all} rule evaluations of which {simple} simple; {errors} errors, {warnings} warnings):",
            self.name
        );
        let line = |what: &str, d: Duration| println!("  {what:<44} {:>8.2} µs", us(d));
        line("prune + default + validate", without);
        line("  + rules", with);
        println!(
            "  {:<44} {:>8.2}x",
            "  admission with rules / without",
            us(with) / us(without)
        );
        line("rules pass (create)", pass);
        println!(
            "  {:<44} {:>8.0} ns ({:.2}x of 1 µs target)",
            "  per rule evaluation",
            ns(pass, all),
            ns(pass, all) / 1000.0
        );
        line("simple rules only (create)", simple_pass);
        println!(
            "  {:<44} {:>8.0} ns ({:.2}x of 1 µs target)",
            "  per simple rule",
            ns(simple_pass, simple),
            ns(simple_pass, simple) / 1000.0
        );
        line("rules pass (update, unchanged, ratcheting)", update);
    }
}

pub fn report() {
    Case::new(
        "CronTab, 3 rules",
        crontab_schema(),
        &CRONTAB_RULES,
        crontab(),
    )
    .report();
    Case::new(
        "Workload, 20 rules, 5 containers",
        crate::schema(),
        &WORKLOAD_RULES,
        workload(),
    )
    .report();
}
