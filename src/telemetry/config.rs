//! kube's `TracingConfiguration` (apiserver.config.k8s.io v1alpha1, v1beta1 and v1, kind
//! `TracingConfiguration`), decoded strictly as k8s.io/apiserver's
//! `ReadTracingConfiguration` decodes it and checked as component-base's
//! `ValidateTracingConfiguration` checks it, with their texts.

use serde_json::{Map, Value};

/// Where spans go when the file names no endpoint (the OTLP gRPC default).
pub const DEFAULT_ENDPOINT: &str = "localhost:4317";
/// The most samples per million (component-base's `maxSamplingRatePerMillion`).
pub const MAX_SAMPLING_RATE_PER_MILLION: i32 = 1_000_000;
/// The group and versions kube's scheme reads the kind in.
const VERSIONS: [&str; 3] = [
    "apiserver.config.k8s.io/v1alpha1",
    "apiserver.config.k8s.io/v1beta1",
    "apiserver.config.k8s.io/v1",
];
const KIND: &str = "TracingConfiguration";
/// The name Go's scheme of `k8s.io/apiserver/pkg/server/options/tracing.go` carries.
const SCHEME: &str = "k8s.io/apiserver/pkg/server/options/tracing.go:48";

/// The configuration: both fields optional, as kube's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TracingConfiguration {
    /// The collector's gRPC target (`host:port`, `dns:///host:port`, `unix:///path`).
    pub endpoint: Option<String>,
    /// Samples per million traces started here; unset (or 0) samples only what a
    /// sampled parent asks for.
    pub sampling_rate_per_million: Option<i32>,
}

impl TracingConfiguration {
    /// The sampler's ratio of traces started here, 0 to 1.
    pub fn sampling_ratio(&self) -> f64 {
        f64::from(self.sampling_rate_per_million.unwrap_or(0).max(0))
            / f64::from(MAX_SAMPLING_RATE_PER_MILLION)
    }
}

/// The file's text into a checked configuration, or kube's text for why not
/// (`failed to read tracing config: …` / `failed to validate tracing configuration: …`).
pub fn load(text: &str) -> Result<TracingConfiguration, String> {
    let config = decode(text).map_err(|e| {
        format!("failed to read tracing config: unable to decode tracing configuration data: {e}")
    })?;
    let errors = validate(&config);
    if errors.is_empty() {
        return Ok(config);
    }
    Err(format!(
        "failed to validate tracing configuration: {}",
        aggregate(&errors)
    ))
}

/// apimachinery's `utilerrors.Aggregate` text: one error alone, several in brackets.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The universal decoder's strict decoding of the file (YAML or JSON).
pub fn decode(text: &str) -> Result<TracingConfiguration, String> {
    // An empty file is accepted as an empty configuration (recorded from the reference).
    if text.trim().is_empty() {
        return Ok(TracingConfiguration::default());
    }
    let value: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let Value::Object(fields) = value else {
        return Err(format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}",
            crate::gofmt::type_name(&value)
        ));
    };
    type_meta(&fields)?;
    let unknown: Vec<String> = fields
        .keys()
        .filter(|k| {
            !["apiVersion", "kind", "endpoint", "samplingRatePerMillion"].contains(&k.as_str())
        })
        .map(|k| format!("unknown field {}", crate::gofmt::quote(k)))
        .collect();
    let config = TracingConfiguration {
        endpoint: field(&fields, "endpoint", "string", |v| {
            v.as_str().map(str::to_string)
        })?,
        sampling_rate_per_million: field(&fields, "samplingRatePerMillion", "int32", |v| {
            v.as_i64().and_then(|n| i32::try_from(n).ok())
        })?,
    };
    if !unknown.is_empty() {
        return Err(format!("strict decoding error: {}", unknown.join(", ")));
    }
    Ok(config)
}

/// `apiVersion` and `kind` as the scheme knows them.
fn type_meta(fields: &Map<String, Value>) -> Result<(), String> {
    let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let shown = || serde_json::to_string(fields).unwrap_or_default();
    if kind.is_empty() {
        return Err(format!("Object 'Kind' is missing in '{}'", shown()));
    }
    if api_version.is_empty() {
        return Err(format!("Object 'apiVersion' is missing in '{}'", shown()));
    }
    if kind != KIND || !VERSIONS.contains(&api_version) {
        return Err(format!(
            "no kind {} is registered for version {} in scheme {}",
            crate::gofmt::quote(kind),
            crate::gofmt::quote(api_version),
            crate::gofmt::quote(SCHEME)
        ));
    }
    Ok(())
}

/// An optional field of Go type `go_type` (`null` is unset, as Go's decoder has it).
fn field<T>(
    fields: &Map<String, Value>,
    name: &str,
    go_type: &str,
    read: impl Fn(&Value) -> Option<T>,
) -> Result<Option<T>, String> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => read(value).map(Some).ok_or_else(|| {
            format!(
                "json: cannot unmarshal {} into Go struct field TracingConfiguration.{name} of type {go_type}",
                unmarshal_what(value)
            )
        }),
    }
}

/// What Go's json says it could not unmarshal.
fn unmarshal_what(value: &Value) -> String {
    match value {
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Bool(_) => "bool".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
        Value::Null => "null".into(),
    }
}

/// component-base's `ValidateTracingConfiguration`: field errors in its words.
pub fn validate(config: &TracingConfiguration) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(rate) = config.sampling_rate_per_million {
        if rate < 0 {
            errors.push(format!(
                "samplingRatePerMillion: Invalid value: {rate}: sampling rate must be positive"
            ));
        }
        if rate > MAX_SAMPLING_RATE_PER_MILLION {
            errors.push(format!(
                "samplingRatePerMillion: Invalid value: {rate}: sampling rate per million must be less than or equal to one million"
            ));
        }
    }
    if let Some(endpoint) = &config.endpoint
        && let Err(e) = validate_endpoint(endpoint)
    {
        errors.push(e);
    }
    errors
}

/// An endpoint is a gRPC target: no scheme reads as `dns://`; only `dns`, `unix` and
/// `unix-abstract` are accepted.
fn validate_endpoint(endpoint: &str) -> Result<(), String> {
    let endpoint = match endpoint.contains("//") {
        true => endpoint.to_string(),
        false => format!("dns://{endpoint}"),
    };
    let invalid = |reason: &str| {
        format!(
            "endpoint: Invalid value: {}: {reason}",
            crate::gofmt::quote(&endpoint)
        )
    };
    let url = crate::gofmt::parse_url(&endpoint).map_err(|e| invalid(&e))?;
    match url.scheme.as_str() {
        "dns" | "unix" | "unix-abstract" => Ok(()),
        other => Err(invalid(&format!(
            "unsupported scheme: {other}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n";

    #[test]
    fn load_accepts_every_version_and_both_fields() {
        for version in VERSIONS {
            let text = format!(
                "apiVersion: {version}\nkind: TracingConfiguration\nendpoint: 127.0.0.1:4317\nsamplingRatePerMillion: 250000\n"
            );
            let config = load(&text).expect(version);
            assert_eq!(config.endpoint.as_deref(), Some("127.0.0.1:4317"));
            assert_eq!(config.sampling_rate_per_million, Some(250000));
            assert!((config.sampling_ratio() - 0.25).abs() < f64::EPSILON);
        }
        let json =
            r#"{"apiVersion":"apiserver.config.k8s.io/v1beta1","kind":"TracingConfiguration"}"#;
        assert_eq!(load(json), Ok(TracingConfiguration::default()));
        assert_eq!(load(""), Ok(TracingConfiguration::default()));
        assert_eq!(load("\n  \n"), Ok(TracingConfiguration::default()));
    }

    #[test]
    fn load_refuses_with_kube_texts() {
        const READ: &str =
            "failed to read tracing config: unable to decode tracing configuration data: ";
        const VALIDATE: &str = "failed to validate tracing configuration: ";
        #[rustfmt::skip]
        let cases: &[(String, String)] = &[
            (format!("{HEAD}samplingRatePerMillion: -1\n"),
             format!("{VALIDATE}samplingRatePerMillion: Invalid value: -1: sampling rate must be positive")),
            (format!("{HEAD}samplingRatePerMillion: 1000001\n"),
             format!("{VALIDATE}samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million")),
            (format!("{HEAD}endpoint: http://collector:4317\n"),
             format!("{VALIDATE}endpoint: Invalid value: \"http://collector:4317\": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md")),
            (format!("{HEAD}endpoint: https://c:1\nsamplingRatePerMillion: -5\n"),
             format!("{VALIDATE}[samplingRatePerMillion: Invalid value: -5: sampling rate must be positive, endpoint: Invalid value: \"https://c:1\": unsupported scheme: https.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md]")),
            (format!("{HEAD}endpoint: \"http://[::1\"\n"),
             format!("{VALIDATE}endpoint: Invalid value: \"http://[::1\": parse \"http://[::1\": missing ']' in host")),
            (format!("{HEAD}sampling: 5\n"), format!("{READ}strict decoding error: unknown field \"sampling\"")),
            (format!("{HEAD}samplingRatePerMillion: lots\n"),
             format!("{READ}json: cannot unmarshal string into Go struct field TracingConfiguration.samplingRatePerMillion of type int32")),
            (format!("{HEAD}samplingRatePerMillion: 3000000000\n"),
             format!("{READ}json: cannot unmarshal number 3000000000 into Go struct field TracingConfiguration.samplingRatePerMillion of type int32")),
            ("apiVersion: apiserver.config.k8s.io/v2\nkind: TracingConfiguration\n".into(),
             format!("{READ}no kind \"TracingConfiguration\" is registered for version \"apiserver.config.k8s.io/v2\" in scheme \"{SCHEME}\"")),
            ("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n".into(),
             format!("{READ}no kind \"AdmissionConfiguration\" is registered for version \"apiserver.config.k8s.io/v1\" in scheme \"{SCHEME}\"")),
            ("endpoint: a:1\n".into(), format!("{READ}Object 'Kind' is missing in '{{\"endpoint\":\"a:1\"}}'")),
        ];
        for (text, want) in cases {
            assert_eq!(load(text).as_ref(), Err(want), "{text}");
        }
    }

    #[test]
    fn validate_endpoint_targets_grpc_accepts() {
        for ok in [
            "localhost:4317",
            "dns:///collector:4317",
            "unix:///run/otel.sock",
            "unix-abstract://otel",
        ] {
            assert_eq!(validate_endpoint(ok), Ok(()), "{ok}");
        }
    }
}
