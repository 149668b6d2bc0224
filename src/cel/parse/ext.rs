//! Macros of the cel-go extensions kube enables: two-variable comprehensions
//! (`ext.TwoVarComprehensions`), `optMap`/`optFlatMap` (`cel.OptionalTypes`) and
//! `sortBy` (`ext.Lists` version 3).

use super::macros::{self, Helper, Macro, MacroError};
use crate::cel::ast::{Expr, ExprKind};

/// `ext/comprehensions.go`'s `cel.@mapInsert`.
const MAP_INSERT: &str = "cel.@mapInsert";
/// The iteration variable of `cel.bind`-shaped comprehensions (`cel/library.go`).
const UNUSED_ITER_VAR: &str = "#unused";
const OPT_TARGET: &str = "@target";
const SORT_BY_INPUT: &str = "@__sortBy_input__";

/// `all`, `exists`, `existsOne`/`exists_one` with two variables.
pub fn quantifier(
    kind: Macro,
    h: &mut Helper<'_, '_>,
    target: Expr,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let (v1, v2, mut rest) = iter_vars(h, args)?;
    let predicate = rest.pop().unwrap_or_else(|| h.bool(false));
    let (init, condition, step, result) = match kind {
        Macro::All2 => {
            let init = h.bool(true);
            let accu = h.accu();
            let condition = h.call("@not_strictly_false", vec![accu]);
            let accu = h.accu();
            let step = h.call("_&&_", vec![accu, predicate]);
            (init, condition, step, h.accu())
        }
        Macro::Exists2 => {
            let init = h.bool(false);
            let accu = h.accu();
            let not = h.call("!_", vec![accu]);
            let condition = h.call("@not_strictly_false", vec![not]);
            let accu = h.accu();
            let step = h.call("_||_", vec![accu, predicate]);
            (init, condition, step, h.accu())
        }
        _ => macros::exists_one_parts(h, predicate),
    };
    Ok(h.fold(target, v1, Some(v2), init, condition, step, result))
}

/// `transformList`, `transformMap`, `transformMapEntry`, with an optional filter
/// before the transform.
pub fn transform(
    kind: Macro,
    h: &mut Helper<'_, '_>,
    target: Expr,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let (v1, v2, mut rest) = iter_vars(h, args)?;
    let transform = rest.pop().unwrap_or_else(|| h.bool(false));
    let filter = rest.pop();
    let accu = h.accu();
    let mut step = match kind {
        Macro::TransformList => {
            let item = h.list(vec![transform]);
            h.call("_+_", vec![accu, item])
        }
        Macro::TransformMap => {
            let key = h.ident(&v1);
            h.call(MAP_INSERT, vec![accu, key, transform])
        }
        _ => h.call(MAP_INSERT, vec![accu, transform]),
    };
    if let Some(filter) = filter {
        let accu = h.accu();
        step = h.call("_?_:_", vec![filter, step, accu]);
    }
    let init = match kind {
        Macro::TransformList => h.list(vec![]),
        _ => h.empty_map(),
    };
    let condition = h.bool(true);
    let result = h.accu();
    Ok(h.fold(target, v1, Some(v2), init, condition, step, result))
}

/// cel-go `extractIterVars`: two simple, distinct names, neither an accumulator's;
/// returns them and the remaining arguments.
fn iter_vars(
    h: &Helper<'_, '_>,
    args: Vec<Expr>,
) -> Result<(String, String, Vec<Expr>), MacroError> {
    let mut args = args.into_iter();
    let (a0, a1) = (args.next(), args.next());
    let v1 = h.simple_name(a0.as_ref(), "argument must be a simple name")?;
    let v2 = h.simple_name(a1.as_ref(), "argument must be a simple name")?;
    if v1 == v2 {
        let id = a1.as_ref().map_or(0, |a| a.id);
        return Err(h.error(id, &format!("duplicate variable name: {v1}")));
    }
    let v1 = h.not_accumulator(a0.as_ref(), v1)?;
    let v2 = h.not_accumulator(a1.as_ref(), v2)?;
    Ok((v1, v2, args.collect()))
}

/// `opt.optMap(x, e)` and `opt.optFlatMap(x, e)`: `e` with `x` bound to the value
/// when `opt` has one (wrapped in `optional.of` for `optMap`), else `optional.none()`.
/// A target that is not an identifier is bound to `@target` first.
pub fn opt_map(
    kind: Macro,
    h: &mut Helper<'_, '_>,
    target: Expr,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [var_node, body]: [Expr; 2] = macros::two(args);
    let not_simple = match kind {
        Macro::OptMap => "optMap() variable name must be a simple identifier",
        _ => "optFlatMap() variable name must be a simple identifier",
    };
    let var = h.simple_name(Some(&var_node), not_simple)?;
    let is_ident = matches!(target.kind, ExprKind::Ident(_));
    let target_ident = if is_ident {
        target.clone()
    } else {
        h.ident(OPT_TARGET)
    };
    let copy = h.copy(&target_ident);
    let has_value = h.member("hasValue", target_ident, vec![]);
    let range = h.list(vec![]);
    let value = h.member("value", copy, vec![]);
    let cond = h.bool(false);
    let step = h.ident(&var);
    let mut present = h.bind_fold(
        range,
        UNUSED_ITER_VAR.into(),
        None,
        &var,
        value,
        cond,
        step,
        body,
    );
    if kind == Macro::OptMap {
        present = h.call("optional.of", vec![present]);
    }
    let none = h.call("optional.none", vec![]);
    let result = h.call("_?_:_", vec![has_value, present, none]);
    if is_ident {
        return Ok(result);
    }
    let range = h.list(vec![]);
    let cond = h.bool(false);
    let step = h.ident(OPT_TARGET);
    Ok(h.bind_fold(
        range,
        UNUSED_ITER_VAR.into(),
        None,
        OPT_TARGET,
        target,
        cond,
        step,
        result,
    ))
}

/// `list.sortBy(x, key)`: the list bound to `@__sortBy_input__`, then
/// `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key))`.
pub fn sort_by(h: &mut Helper<'_, '_>, target: Expr, args: Vec<Expr>) -> Result<Expr, MacroError> {
    let input = h.ident(SORT_BY_INPUT);
    let sortable = matches!(
        target.kind,
        ExprKind::List { .. }
            | ExprKind::Select { .. }
            | ExprKind::Ident(_)
            | ExprKind::Comprehension(_)
            | ExprKind::Call { .. }
    );
    if !sortable {
        return Err(h.error(
            target.id,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
        ));
    }
    let map_range = h.copy(&input);
    let keys = macros::map(h, map_range, args)?;
    let receiver = h.copy(&input);
    let sorted = h.member("@sortByAssociatedKeys", receiver, vec![keys]);
    let range = h.list(vec![]);
    let cond = h.bool(false);
    Ok(h.bind_fold(
        range,
        UNUSED_ITER_VAR.into(),
        None,
        SORT_BY_INPUT,
        target,
        cond,
        input,
        sorted,
    ))
}
