//! A manager's field set brought in line with the current schema
//! (`ReconcileFieldSetWithSchema`): a list, map or struct that became atomic since the
//! set was recorded is owned as one node, without the children the manager held.
//!
//! Only granular → atomic is reconciled. Atomic → granular keeps the node as it is (upstream
//! cannot tell an empty granular node from a former atomic one), and deduced maps
//! (preserve-unknown-fields without properties) are never walked.

use super::atom::{Form, Map, Scalar, TypeRef};
use super::errors::ValidationErrors;
use crate::fieldmanager::fieldpath::{PathElement, Set};

/// `set` reconciled with `ty`; `None` when nothing had to change. The walk follows the
/// set, not a value: upstream's walker carries the live object but never reads it. The
/// caller words the errors (`errors reconciling field set with schema: ...`).
pub fn reconcile_field_set_with_schema(
    set: &Set,
    ty: &TypeRef,
) -> Result<Option<Set>, ValidationErrors> {
    let mut walker = Walker {
        path: Vec::new(),
        atomic: None,
    };
    walker.node(ty, Some(set), false).into_result()?;
    // Upstream removes each now-atomic node with all it holds, then adds the node back.
    Ok(walker
        .atomic
        .map(|nodes| set.recursive_difference(&nodes).union(&nodes)))
}

struct Walker {
    path: Vec<PathElement>,
    /// The nodes that are atomic now but were owned granularly; `None` until one is met
    /// (upstream's `toRemove` / `toAdd`, which always hold the same paths).
    atomic: Option<Set>,
}

impl Walker {
    /// One node of the set: `set` is what is owned below it, `is_atomic` that it is owned
    /// as a member with nothing below (already the shape of an atomic node).
    fn node(&mut self, ty: &TypeRef, set: Option<&Set>, is_atomic: bool) -> ValidationErrors {
        // No value decides the form: upstream's `handleAtom` takes map, then scalar, then
        // list, which is the form an absent value gets.
        match ty.resolve().form_for(None) {
            Form::Scalar(_) => ValidationErrors::default(),
            Form::List(list) => {
                if !is_atomic && list.atomic {
                    self.now_atomic();
                    return ValidationErrors::default();
                }
                match set {
                    Some(set) => self.items(set, |_| Some(&list.element)),
                    None => ValidationErrors::default(),
                }
            }
            Form::Map(map) => self.map(map, set, is_atomic),
            Form::Invalid => ValidationErrors::one("schema error: invalid atom: inlined"),
        }
    }

    fn map(&mut self, map: &Map, set: Option<&Set>, is_atomic: bool) -> ValidationErrors {
        // Deduced maps have no atomic or granular tags to reconcile with.
        if is_untyped_deduced_map(map) {
            return ValidationErrors::default();
        }
        if !is_atomic && map.atomic {
            // A manager owning the node but nothing below it is left as it is.
            if set.is_some_and(|s| s.size() > 0) {
                self.now_atomic();
            }
            return ValidationErrors::default();
        }
        match set {
            Some(set) => self.items(set, |pe| member_type(map, pe)),
            None => ValidationErrors::default(),
        }
    }

    /// Visits the elements below this node: those only holding children first, then the
    /// members; elements the schema has no type for are skipped.
    fn items<'t>(
        &mut self,
        set: &Set,
        type_of: impl Fn(&PathElement) -> Option<&'t TypeRef>,
    ) -> ValidationErrors {
        let parents = set
            .children()
            .map(|(pe, _)| (pe, false))
            .filter(|(pe, _)| !set.has_member(pe));
        let members = set.members().map(|pe| (pe, true));
        let mut errs = ValidationErrors::default();
        for (pe, is_member) in parents.chain(members) {
            let Some(ty) = type_of(pe) else {
                continue;
            };
            let below = set.child(pe);
            self.path.push(pe.clone());
            errs.extend(self.node(ty, below, is_member && below.is_none()));
            self.path.pop();
        }
        errs
    }

    /// Records the current node as owned whole from now on. The root path is never
    /// tracked, so reaching an atomic root still counts as a change that changes nothing.
    fn now_atomic(&mut self) {
        self.atomic.get_or_insert_default().insert(&self.path);
    }
}

/// `typeRefAtPath`: a named field's type, else the map's element type.
fn member_type<'m>(map: &'m Map, pe: &PathElement) -> Option<&'m TypeRef> {
    match pe {
        PathElement::FieldName(name) => map.member(name),
        _ => map.element.as_ref(),
    }
}

/// `isUntypedDeducedMap`: no named fields, and elements of the deduced or an untyped
/// scalar type (preserve-unknown-fields without properties).
fn is_untyped_deduced_map(map: &Map) -> bool {
    map.fields.is_empty() && map.element.as_ref().is_some_and(is_untyped_deduced_ref)
}

fn is_untyped_deduced_ref(ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Deduced => true,
        TypeRef::UntypedAtomic => false,
        TypeRef::Inline(atom) => atom.scalar == Some(Scalar::Untyped),
    }
}
