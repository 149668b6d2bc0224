//! cel-go's saturating cost arithmetic (`common/cost`) and its size and cost ranges
//! (`checker.SizeEstimate`, `checker.CostEstimate`).

/// cel-go `StringTraversalCostFactor`: the cost of traversing one character.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// cel-go `RegexStringLengthCostFactor`: the cost per character of a regex pattern.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
/// cel-go `SelectAndIdentCost`.
pub const SELECT_AND_IDENT_COST: u64 = 1;
/// cel-go `ListCreateBaseCost`.
pub const LIST_CREATE_BASE_COST: u64 = 10;
/// cel-go `MapCreateBaseCost`.
pub const MAP_CREATE_BASE_COST: u64 = 30;
/// cel-go `StructCreateBaseCost`.
pub const STRUCT_CREATE_BASE_COST: u64 = 40;

/// `cost.SafeAdd`.
pub fn safe_add(x: u64, y: u64) -> u64 {
    x.saturating_add(y)
}

/// `cost.SafeMultiply`.
pub fn safe_multiply(x: u64, y: u64) -> u64 {
    x.saturating_mul(y)
}

/// `cost.SafeMultiplyByFactor`: `ceil(x × factor)`, saturating.
pub fn safe_multiply_by_factor(x: u64, factor: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && factor > 0.0 && xf > u64::MAX as f64 / factor {
        return u64::MAX;
    }
    safe_ceil(xf * factor)
}

/// `cost.SafeCeil`.
pub fn safe_ceil(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    let ceil = x.ceil();
    // 2^64 as a float: anything at or above does not fit.
    if ceil >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    ceil as u64
}

/// A range of sizes (characters of a string, bytes, entries of a list or map).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeEstimate {
    pub min: u64,
    pub max: u64,
}

/// A range of costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CostEstimate {
    pub min: u64,
    pub max: u64,
}

impl SizeEstimate {
    pub const UNKNOWN: SizeEstimate = SizeEstimate {
        min: 0,
        max: u64::MAX,
    };

    pub fn fixed(size: u64) -> SizeEstimate {
        SizeEstimate {
            min: size,
            max: size,
        }
    }

    pub fn multiply(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: safe_multiply(self.min, o.min),
            max: safe_multiply(self.max, o.max),
        }
    }

    pub fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate {
            min: safe_multiply_by_factor(self.min, factor),
            max: safe_multiply_by_factor(self.max, factor),
        }
    }

    pub fn multiply_by_cost(self, c: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: safe_multiply(self.min, c.min),
            max: safe_multiply(self.max, c.max),
        }
    }

    pub fn union(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    pub fn as_cost(self) -> CostEstimate {
        self.multiply_by_cost_factor(1.0)
    }
}

impl CostEstimate {
    pub fn fixed(cost: u64) -> CostEstimate {
        CostEstimate {
            min: cost,
            max: cost,
        }
    }

    pub fn multiply(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: safe_multiply(self.min, o.min),
            max: safe_multiply(self.max, o.max),
        }
    }

    pub fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate {
            min: safe_multiply_by_factor(self.min, factor),
            max: safe_multiply_by_factor(self.max, factor),
        }
    }

    pub fn union(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// A size range read as a cost range (Go's `checker.CostEstimate(size)` conversion).
    pub fn from_size(s: SizeEstimate) -> CostEstimate {
        CostEstimate {
            min: s.min,
            max: s.max,
        }
    }
}

/// Saturating, as cel-go's `Add`.
impl std::ops::Add for SizeEstimate {
    type Output = SizeEstimate;

    fn add(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: safe_add(self.min, o.min),
            max: safe_add(self.max, o.max),
        }
    }
}

/// Saturating, as cel-go's `Add`.
impl std::ops::Add for CostEstimate {
    type Output = CostEstimate;

    fn add(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: safe_add(self.min, o.min),
            max: safe_add(self.max, o.max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_arithmetic_matches_cel_go_table() {
        let cases: [(u64, f64, u64); 7] = [
            (0, 0.1, 0),
            (100, 0.0, 0),
            (15, 0.1, 2),
            (10, 0.1, 1),
            (10, 3.0, 30),
            (u64::MAX, 2.0, u64::MAX),
            (u64::MAX, 0.1, 1_844_674_407_370_955_264),
        ];
        for (x, factor, want) in cases {
            assert_eq!(safe_multiply_by_factor(x, factor), want, "{x} × {factor}");
        }
        assert_eq!(safe_multiply_by_factor(10, -1.0), 0);
        assert_eq!(safe_add(u64::MAX - 5, 10), u64::MAX);
        assert_eq!(
            safe_multiply(u64::from(u32::MAX), u64::from(u32::MAX) * 2),
            u64::MAX
        );
        assert_eq!(safe_multiply(u64::MAX, 0), 0);
        assert_eq!(safe_ceil(f64::INFINITY), u64::MAX);
        assert_eq!(safe_ceil(f64::NAN), 0);
        assert_eq!(safe_ceil(2.0_f64.powi(63)), 1 << 63);
    }
}
