//! The environment of admission policies (k8s.io/apiserver `pkg/admission/plugin/cel/
//! compile.go` and `composition.go`): the admission variables, `params` (dyn, declared
//! only for a policy with a `paramKind`), and `variables`, kube's `kubernetes.variables`
//! object whose fields are the policy's variables with their output types, compiled in
//! order so that each sees the ones before it. A [`Compiler`] compiles a policy's
//! variables and then its expressions against them, each with the result type kube
//! requires ([`Output`]) and kube's texts.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cel::check::{self, Var};
use crate::cel::cost::{self, CostEstimate};
use crate::cel::decl::{DeclKind, DeclType, Field};
use crate::cel::env::Env;
use crate::cel::eval::Plan;
use crate::cel::lib::authz::{AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE};
use crate::cel::types::Type;

use super::types::{
    bool_, dyn_, int, list, map, namespace_type, request_type, scalar, string, timestamp,
};
use super::{AUTHORIZER, NAMESPACE_OBJECT, OBJECT, OLD_OBJECT, REQUEST, REQUEST_RESOURCE};

pub const PARAMS: &str = "params";
pub const VARIABLES: &str = "variables";
/// kube's `variablesTypeName`.
pub const VARIABLES_TYPE: &str = "kubernetes.variables";

/// The variables in slot order (those not declared are never referenced).
pub(super) const SLOTS: [&str; 8] = [
    OBJECT,
    OLD_OBJECT,
    NAMESPACE_OBJECT,
    REQUEST,
    AUTHORIZER,
    REQUEST_RESOURCE,
    PARAMS,
    VARIABLES,
];

/// kube's `OptionalVariableDeclarations`: which optional variables an expression sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Declarations {
    /// `params` is declared (the policy has a `paramKind`); it may still be `null`.
    pub has_params: bool,
    /// `authorizer` and `authorizer.requestResource` are declared.
    pub has_authorizer: bool,
    /// MutatingAdmissionPolicy's `Object{...}` and `JSONPatch{...}` types are known
    /// (`src/cel/mutation` plugs its library in through [`environment`]).
    pub has_patch_types: bool,
}

/// What an expression must evaluate to (kube's `ReturnTypes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// validations and matchConditions.
    Bool,
    /// messageExpression.
    String,
    /// an auditAnnotation's valueExpression.
    StringOrNull,
    /// variables: anything.
    Any,
    /// a mutation: `Object` (ApplyConfiguration) or `list(JSONPatch)` (JSONPatch).
    Patch(crate::cel::mutation::Output),
}

impl Output {
    fn types(self) -> &'static [Type] {
        match self {
            Output::Bool => &[Type::Bool],
            Output::String => &[Type::String],
            Output::StringOrNull => &[Type::String, Type::Null],
            Output::Any | Output::Patch(_) => &[],
        }
    }

    /// kube's `IsExactType` against each allowed type; the error is kube's reason.
    fn check(self, found: &Type) -> Result<(), String> {
        if let Output::Patch(patch) = self {
            return match patch.accepts(found) {
                true => Ok(()),
                false => Err(format!(
                    "must evaluate to {} but got {found}",
                    patch.type_name()
                )),
            };
        }
        let allowed = self.types();
        if allowed.is_empty() || allowed.iter().any(|t| exact(t, found)) {
            return Ok(());
        }
        Err(match allowed {
            [one] => format!("must evaluate to {one} but got {found}"),
            many => {
                let names: Vec<String> = many.iter().map(Type::to_string).collect();
                format!(
                    "must evaluate to one of [{}] but got {found}",
                    names.join(" ")
                )
            }
        })
    }
}

fn exact(expected: &Type, found: &Type) -> bool {
    matches!(
        (expected, found),
        (Type::Bool, Type::Bool) | (Type::String, Type::String) | (Type::Null, Type::Null)
    )
}

/// One compiled expression: its source (kube's messages quote it), and its program or
/// kube's compile error detail (`compilation failed: ERROR: <input>:1:1: ...`).
#[derive(Debug)]
pub struct PolicyExpression {
    pub source: String,
    pub program: Result<PolicyProgram, String>,
}

/// A planned expression, shared read-only between requests.
pub struct PolicyProgram {
    pub(super) plan: Plan,
    /// cel-go's estimated maximum cost of one evaluation.
    pub cost: CostEstimate,
    /// The checked output type.
    pub output: Type,
}

impl std::fmt::Debug for PolicyProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyProgram")
            .field("cost", &self.cost)
            .field("output", &self.output)
            .finish()
    }
}

/// A named variable of the policy.
#[derive(Debug)]
pub struct CompiledVariable {
    pub name: String,
    pub expression: PolicyExpression,
}

/// The compiled variables of one policy, in order, which its expressions read lazily.
#[derive(Debug, Default)]
pub struct Composition {
    pub variables: Vec<CompiledVariable>,
}

/// The schema types of `object`/`oldObject` and `params` (kube's type checker's
/// `typeOverwrite`); `None` declares the variable dyn, as admission does.
#[derive(Clone, Debug, Default)]
pub struct Typed {
    pub object: Option<Arc<DeclType>>,
    pub params: Option<Arc<DeclType>>,
}

/// kube's `CompositedCompiler` for one policy.
pub struct Compiler {
    env: Environments,
    composition: Composition,
    /// `kubernetes.variables` with the fields compiled so far.
    variables_type: Arc<DeclType>,
    typed: Typed,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler::new()
    }
}

impl Compiler {
    pub fn new() -> Compiler {
        Compiler::typed(Typed::default())
    }

    /// A compiler whose `object`, `oldObject` and `params` have `typed`'s types (kube's
    /// type checker), for [`Compiler::check_variable`] and [`Compiler::check`].
    pub fn typed(typed: Typed) -> Compiler {
        Compiler {
            env: Environments {
                stored: crate::cel::env::stored(),
                patch_types: crate::cel::env::with_patch_types(),
            },
            composition: Composition::default(),
            variables_type: variables_type(BTreeMap::new()),
            typed,
        }
    }

    /// kube's `CompileAndStoreVariable`: compiled against the variables before it, then
    /// a field of `variables` typed by its output (dyn if it failed to compile).
    pub fn compile_variable(&mut self, name: &str, expression: &str, decls: Declarations) {
        let compiled = self.compile(expression, decls, Output::Any);
        let output = compiled
            .program
            .as_ref()
            .map_or(Type::Dyn, |p| p.output.clone());
        self.store_variable_type(name, &output);
        self.composition.variables.push(CompiledVariable {
            name: name.to_string(),
            expression: compiled,
        });
    }

    /// kube's type checker's `CompileAndStoreVariable`: checked only, then a field of
    /// `variables` typed by its output (dyn if it does not check).
    pub fn check_variable(&mut self, name: &str, expression: &str, decls: Declarations) {
        let output = self.check(expression, decls).unwrap_or(Type::Dyn);
        self.store_variable_type(name, &output);
    }

    /// kube's `typeCheckingCompiler.CompileCELExpression`: parsed and checked only, any
    /// output type accepted; the error is cel-go's issues text verbatim.
    pub fn check(&self, source: &str, decls: Declarations) -> Result<Type, String> {
        let env = environment(&self.env, decls);
        let ast = crate::cel::parse::parse(source)?;
        let checked = check::check(ast, env, &self.vars(decls))?;
        Ok(checked.type_of(checked.ast.expr.id).clone())
    }

    /// Adds `name` to `kubernetes.variables`, typed as kube's `convertCelTypeToDeclType`.
    fn store_variable_type(&mut self, name: &str, output: &Type) {
        let mut fields = match &self.variables_type.kind {
            DeclKind::Object { fields } => clone_fields(fields),
            _ => BTreeMap::new(),
        };
        let field = Field {
            json_name: name.to_string(),
            decl: decl_of(output),
            required: true,
        };
        fields.insert(name.to_string(), field);
        self.variables_type = variables_type(fields);
    }

    /// kube's `CompileCELExpression` in the composited environment.
    pub fn compile(&self, source: &str, decls: Declarations, output: Output) -> PolicyExpression {
        PolicyExpression {
            source: source.to_string(),
            program: self.program(source, decls, output),
        }
    }

    fn program(
        &self,
        source: &str,
        decls: Declarations,
        output: Output,
    ) -> Result<PolicyProgram, String> {
        let env = environment(&self.env, decls);
        let failed = |e: String| format!("compilation failed: {e}");
        let ast = crate::cel::parse::parse(source).map_err(failed)?;
        let checked = check::check(ast, env, &self.vars(decls)).map_err(failed)?;
        let found = checked.type_of(checked.ast.expr.id).clone();
        output.check(&found)?;
        let cost = cost::estimate_with_root(&checked, None);
        let not_instantiated = |e: String| format!("program instantiation failed: {e}");
        check::instantiate(&checked).map_err(not_instantiated)?;
        let plan =
            Plan::with_lazy(&checked, env, &SLOTS, Some(VARIABLES)).map_err(not_instantiated)?;
        Ok(PolicyProgram {
            plan,
            cost,
            output: found,
        })
    }

    /// The compiled variables, for the evaluation of the expressions compiled here.
    pub fn finish(self) -> Arc<Composition> {
        Arc::new(self.composition)
    }

    fn vars(&self, decls: Declarations) -> Vec<Var> {
        let var = |name: &str, ty: Type, decl: Option<&Arc<DeclType>>| Var {
            name: name.to_string(),
            ty,
            decl: decl.cloned(),
        };
        let object = |decl: &Arc<DeclType>| Type::Object(Arc::clone(decl));
        let typed = |decl: Option<&Arc<DeclType>>| decl.map_or(Type::Dyn, DeclType::cel_type);
        let (object_decl, params_decl) = (self.typed.object.as_ref(), self.typed.params.as_ref());
        let mut vars = vec![
            var(OBJECT, typed(object_decl), object_decl),
            var(OLD_OBJECT, typed(object_decl), object_decl),
            var(
                NAMESPACE_OBJECT,
                object(namespace_type()),
                Some(namespace_type()),
            ),
            var(REQUEST, object(request_type()), Some(request_type())),
        ];
        if decls.has_params {
            vars.push(var(PARAMS, typed(params_decl), params_decl));
        }
        if decls.has_authorizer {
            vars.push(var(AUTHORIZER, Type::Opaque(AUTHORIZER_TYPE), None));
            vars.push(var(
                REQUEST_RESOURCE,
                Type::Opaque(RESOURCE_CHECK_TYPE),
                None,
            ));
        }
        let variables = &self.variables_type;
        vars.push(var(VARIABLES, object(variables), Some(variables)));
        vars
    }
}

/// The functions an expression may call: the stored expressions' environment (kube's
/// `StoredExpressions` at 1.36). With `has_patch_types`, the mutation types and the
/// `jsonpatch` library join it.
fn environment(env: &Environments, decls: Declarations) -> &Env {
    match decls.has_patch_types {
        true => &env.patch_types,
        false => &env.stored,
    }
}

/// The two environments a policy's expressions compile in.
struct Environments {
    stored: Arc<Env>,
    patch_types: Arc<Env>,
}

fn variables_type(fields: BTreeMap<String, Field>) -> Arc<DeclType> {
    scalar(VARIABLES_TYPE, DeclKind::Object { fields }, 2, 0)
}

fn clone_fields(fields: &BTreeMap<String, Field>) -> BTreeMap<String, Field> {
    fields
        .iter()
        .map(|(name, f)| {
            let field = Field {
                json_name: f.json_name.clone(),
                decl: Arc::clone(&f.decl),
                required: f.required,
            };
            (name.clone(), field)
        })
        .collect()
}

/// kube's `convertCelTypeToDeclType`: scalars as themselves, lists and string-keyed
/// maps element by element, anything else dyn.
fn decl_of(ty: &Type) -> Arc<DeclType> {
    match ty {
        Type::Bool => bool_(),
        Type::Int => int(),
        Type::String => string(),
        Type::Double => scalar("double", DeclKind::Double, 1, 0),
        Type::Bytes => scalar("bytes", DeclKind::Bytes, 2, 0),
        Type::Duration => scalar("duration", DeclKind::Duration, 3, 32),
        Type::Timestamp => timestamp(),
        Type::List(elem) => list(decl_of(elem)),
        Type::Map(key, value) if matches!(**key, Type::String) => map(decl_of(value)),
        _ => dyn_(),
    }
}
