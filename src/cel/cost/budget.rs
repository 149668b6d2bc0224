//! What kube does with estimated costs when a CRD is written (apiextensions-apiserver
//! `validation.go`, `cel_validation.go`, `schema/cel/compilation.go`): how often a rule
//! can run per object, its total cost, the per-expression and per-CRD limits, and the
//! error text when they are exceeded.

use crate::cel::decl::MAX_REQUEST_SIZE_BYTES;
use crate::cel::schema::{Schema, SchemaType};

/// kube's `StaticEstimatedCostLimit`: the largest estimated cost of one expression.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// kube's `StaticEstimatedCRDCostLimit`: the largest total for all rules of a CRD schema.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// kube's `maxCardinality`: how many values of at least `min_size` serialized bytes fit in
/// one request, assuming a comma between each.
pub fn max_cardinality(min_size: i64) -> u64 {
    let size = min_size.saturating_add(1);
    // Go's int64 → uint64 conversion, kept for the (impossible) negative case.
    MAX_REQUEST_SIZE_BYTES.checked_div(size).unwrap_or(0) as u64
}

/// kube's `multiplyWithOverflowGuard`.
pub fn multiply_with_overflow_guard(base_cost: u64, cardinality: u64) -> u64 {
    if base_cost == 0 {
        // An empty rule can cost 0.
        return 0;
    }
    base_cost.saturating_mul(cardinality)
}

/// kube's `getExpressionCost`: the estimate times the schema-derived cardinality when it
/// is bounded (`schema_cardinality`), else times the request-size cardinality of the
/// rule's scope (`max_cardinality(min_serialized_size)`).
pub fn expression_cost(
    max_cost: u64,
    schema_cardinality: Option<u64>,
    scope_cardinality: u64,
) -> u64 {
    multiply_with_overflow_guard(max_cost, schema_cardinality.unwrap_or(scope_cardinality))
}

/// kube's `extractMaxElements`: the factor by which a schema node multiplies the number
/// of its children; `None` for unbounded arrays and maps.
pub fn extract_max_elements(schema: &impl Schema) -> Option<u64> {
    let bound = |n: Option<i64>| n.map(|n| n.max(0) as u64);
    match schema.type_() {
        SchemaType::Object if schema.additional_properties().is_some() => {
            bound(schema.max_properties())
        }
        SchemaType::Array => bound(schema.max_items()),
        _ => Some(1),
    }
}

/// The cardinality of a child of `parent` (kube's `childContext`): unbounded once any
/// ancestor is. The root's is `Some(1)`.
pub fn child_cardinality(parent_cardinality: Option<u64>, parent: &impl Schema) -> Option<u64> {
    let parent_cardinality = parent_cardinality?;
    let factor = extract_max_elements(parent)?;
    Some(multiply_with_overflow_guard(parent_cardinality, factor))
}

/// kube's `getCostErrorMessage`.
pub fn cost_error_message(cost_name: &str, expression_cost: u64, cost_limit: u64) -> String {
    let exceed = expression_cost as f64 / cost_limit as f64;
    let factor = if exceed > 100.0 {
        "more than 100x".to_string()
    } else if exceed < 1.5 {
        format!("{exceed:.6}x")
    } else {
        format!("{exceed:.1}x")
    };
    format!(
        "{cost_name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// kube's `TotalCost`: the sum of all expression costs of a CRD schema, with the four
/// most expensive expressions (those of at least 1% of the CRD limit) for the errors.
#[derive(Debug, Default)]
pub struct TotalCost<P> {
    pub total: u64,
    /// Most expensive first.
    pub most_expensive: Vec<(P, u64)>,
}

impl<P> TotalCost<P> {
    pub fn observe(&mut self, path: P, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }

    pub fn exceeds_limit(&self) -> bool {
        self.total > STATIC_ESTIMATED_CRD_COST_LIMIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_error_message_factor_formats_match_kube() {
        let suffix = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
        let cases = [
            (12_000_000, "1.200000x"),
            (10_000_001, "1.000000x"),
            (15_000_000, "1.5x"),
            (25_160_000, "2.5x"),
            (1_000_000_000, "100.0x"),
            (1_000_000_001, "more than 100x"),
        ];
        for (cost, factor) in cases {
            let got = cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT);
            let want = format!("estimated rule cost exceeds budget by factor of {factor}{suffix}");
            assert_eq!(got, want, "cost {cost}");
        }
    }

    #[test]
    fn max_cardinality_of_min_sizes_matches_kube() {
        // 3 MiB / (min + 1).
        let cases = [(1, 1_572_864), (2, 1_048_576), (4, 629_145), (0, 3_145_728)];
        for (min_size, want) in cases {
            assert_eq!(max_cardinality(min_size), want, "min size {min_size}");
        }
    }

    #[test]
    fn expression_cost_bounded_or_scope_cardinality_saturates() {
        assert_eq!(expression_cost(0, None, 5), 0);
        assert_eq!(expression_cost(3, Some(10), 5), 30);
        assert_eq!(expression_cost(3, None, 5), 15);
        assert_eq!(expression_cost(u64::MAX / 2, Some(3), 5), u64::MAX);
    }

    #[test]
    fn total_cost_keeps_four_most_expensive_above_one_percent() {
        let mut total = TotalCost::default();
        for (path, cost) in [
            ("a", 999_999),
            ("b", 5_000_000),
            ("c", 1_000_000),
            ("d", 9_000_000),
        ] {
            total.observe(path, cost);
        }
        total.observe("e", 2_000_000);
        total.observe("f", 3_000_000);
        let paths: Vec<_> = total.most_expensive.iter().map(|(p, _)| *p).collect();
        assert_eq!(paths, ["d", "b", "f", "e"]);
        assert_eq!(total.total, 20_999_999);
        assert!(!total.exceeds_limit());
    }
}
