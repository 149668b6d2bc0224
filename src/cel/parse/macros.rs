//! cel-go's macros, expanded into comprehensions exactly as kube's environment
//! expands them: the standard ones (`parser/macro.go`, without the 2-argument
//! `existsOne`, which `cel.StandardMacros` leaves out), the two-variable
//! comprehensions (`ext/comprehensions.go`), `optMap`/`optFlatMap`
//! (`cel/library.go`) and `sortBy` (`ext/lists.go`, version 3). `cel.bind` is
//! not one: kube does not enable `ext.Bindings`.

pub use super::helper::Helper;
use crate::cel::ast::{Expr, ExprKind, Id, Literal};

/// cel-go's accumulator (`parser.HiddenAccumulatorName`, the parser's default).
pub const ACCUMULATOR: &str = "@result";
/// The accumulator name of older cel-go versions, still refused as an iteration variable.
pub const LEGACY_ACCUMULATOR: &str = "__result__";

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Macro {
    Has,
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
    All2,
    Exists2,
    ExistsOne2,
    TransformList,
    TransformMap,
    TransformMapEntry,
    OptMap,
    OptFlatMap,
    SortBy,
}

/// A macro argument cel-go refuses: the node it points at, and its text.
pub struct MacroError {
    pub id: Id,
    pub message: String,
}

/// The macro a call is, by function name, receiver style and argument count
/// (cel-go's macro key); `None` leaves it a call.
pub fn find(function: &str, receiver: bool, args: usize) -> Option<Macro> {
    if !receiver {
        return (function == "has" && args == 1).then_some(Macro::Has);
    }
    let found = match (function, args) {
        ("all", 2) => Macro::All,
        ("exists", 2) => Macro::Exists,
        ("exists_one", 2) => Macro::ExistsOne,
        ("map", 2 | 3) => Macro::Map,
        ("filter", 2) => Macro::Filter,
        ("all", 3) => Macro::All2,
        ("exists", 3) => Macro::Exists2,
        ("existsOne" | "exists_one", 3) => Macro::ExistsOne2,
        ("transformList", 3 | 4) => Macro::TransformList,
        ("transformMap", 3 | 4) => Macro::TransformMap,
        ("transformMapEntry", 3 | 4) => Macro::TransformMapEntry,
        ("optMap", 2) => Macro::OptMap,
        ("optFlatMap", 2) => Macro::OptFlatMap,
        ("sortBy", 2) => Macro::SortBy,
        _ => return None,
    };
    Some(found)
}

/// Expands a call already known to be `kind` (`target` is set for receiver calls).
pub fn expand(
    kind: Macro,
    h: &mut Helper<'_, '_>,
    target: Option<Expr>,
    mut args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let Some(target) = target else {
        return has(h, args.pop());
    };
    match kind {
        Macro::Has => Err(h.error(target.id, "invalid argument to has() macro")),
        Macro::All | Macro::Exists | Macro::ExistsOne => quantifier(kind, h, target, args),
        Macro::Map => map(h, target, args),
        Macro::Filter => filter(h, target, args),
        Macro::All2 | Macro::Exists2 | Macro::ExistsOne2 => {
            super::ext::quantifier(kind, h, target, args)
        }
        Macro::TransformList | Macro::TransformMap | Macro::TransformMapEntry => {
            super::ext::transform(kind, h, target, args)
        }
        Macro::OptMap | Macro::OptFlatMap => super::ext::opt_map(kind, h, target, args),
        Macro::SortBy => super::ext::sort_by(h, target, args),
    }
}

/// `has(e.f)`: a presence test of `f` on `e`.
fn has(h: &mut Helper<'_, '_>, arg: Option<Expr>) -> Result<Expr, MacroError> {
    match arg {
        Some(Expr {
            kind: ExprKind::Select { operand, field, .. },
            ..
        }) => Ok(h.node(ExprKind::Select {
            operand,
            field,
            test: true,
        })),
        other => Err(h.error(
            other.map_or(h.at, |a| a.id),
            "invalid argument to has() macro",
        )),
    }
}

/// `all`, `exists`, `exists_one` (cel-go `makeQuantifier`).
fn quantifier(
    kind: Macro,
    h: &mut Helper<'_, '_>,
    target: Expr,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [var, predicate]: [Expr; 2] = two(args);
    let var = h.iter_var(Some(&var), "argument must be a simple name")?;
    let (init, condition, step, result) = match kind {
        Macro::All => {
            let init = h.bool(true);
            let accu = h.accu();
            let condition = h.call("@not_strictly_false", vec![accu]);
            let accu = h.accu();
            let step = h.call("_&&_", vec![accu, predicate]);
            (init, condition, step, h.accu())
        }
        Macro::Exists => {
            let init = h.bool(false);
            let accu = h.accu();
            let not = h.call("!_", vec![accu]);
            let condition = h.call("@not_strictly_false", vec![not]);
            let accu = h.accu();
            let step = h.call("_||_", vec![accu, predicate]);
            (init, condition, step, h.accu())
        }
        _ => exists_one_parts(h, predicate),
    };
    Ok(h.fold(target, var, None, init, condition, step, result))
}

/// Accumulator start, condition, step and result of `exists_one`: count the
/// matches, then compare with 1.
pub fn exists_one_parts(h: &mut Helper<'_, '_>, predicate: Expr) -> (Expr, Expr, Expr, Expr) {
    let init = h.int(0);
    let condition = h.bool(true);
    let accu = h.accu();
    let one = h.int(1);
    let add = h.call("_+_", vec![accu, one]);
    let accu = h.accu();
    let step = h.call("_?_:_", vec![predicate, add, accu]);
    let accu = h.accu();
    let one = h.int(1);
    let result = h.call("_==_", vec![accu, one]);
    (init, condition, step, result)
}

/// `map(x, f)` and `map(x, p, f)` (cel-go `MakeMap`).
pub fn map(h: &mut Helper<'_, '_>, target: Expr, args: Vec<Expr>) -> Result<Expr, MacroError> {
    let mut args = args.into_iter();
    let var = h.iter_var(args.next().as_ref(), "argument is not an identifier")?;
    let mut rest: Vec<Expr> = args.collect();
    let transform = rest.pop().unwrap_or_else(|| h.bool(false));
    let filter = rest.pop();
    let init = h.list(vec![]);
    let condition = h.bool(true);
    let accu = h.accu();
    let item = h.list(vec![transform]);
    let mut step = h.call("_+_", vec![accu, item]);
    if let Some(filter) = filter {
        let accu = h.accu();
        step = h.call("_?_:_", vec![filter, step, accu]);
    }
    let result = h.accu();
    Ok(h.fold(target, var, None, init, condition, step, result))
}

/// `filter(x, p)` (cel-go `MakeFilter`): the list keeps the variable's own node.
fn filter(h: &mut Helper<'_, '_>, target: Expr, args: Vec<Expr>) -> Result<Expr, MacroError> {
    let [var_node, predicate]: [Expr; 2] = two(args);
    let var = h.iter_var(Some(&var_node), "argument is not an identifier")?;
    let init = h.list(vec![]);
    let condition = h.bool(true);
    let accu = h.accu();
    let item = h.list(vec![var_node]);
    let step = h.call("_+_", vec![accu, item]);
    let accu = h.accu();
    let step = h.call("_?_:_", vec![predicate, step, accu]);
    let result = h.accu();
    Ok(h.fold(target, var, None, init, condition, step, result))
}

/// The two arguments of a 2-argument macro (the caller matched the count).
pub fn two(args: Vec<Expr>) -> [Expr; 2] {
    let mut it = args.into_iter();
    let placeholder = || Expr {
        id: 0,
        kind: ExprKind::Literal(Literal::Null),
    };
    [
        it.next().unwrap_or_else(placeholder),
        it.next().unwrap_or_else(placeholder),
    ]
}
