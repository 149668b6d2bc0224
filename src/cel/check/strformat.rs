//! The strings extension's `format` validator (cel-go `ext/formatting.go`
//! `stringFormatValidator`, strings versions 1 to 3): a literal format string applied
//! to a list literal is parsed at compile time, and each clause's argument type checked
//! against what the clause accepts.

use crate::cel::ast::{Expr, ExprKind, Id, Literal};
use crate::cel::checked::{Checked, Reference};
use crate::cel::types::Type;

/// Issues of one `'...'.format([...])` call (none for other nodes).
pub(super) fn validate(checked: &Checked, e: &Expr, issues: &mut Vec<(Id, String)>) {
    let ExprKind::Call {
        function,
        target: Some(target),
        args,
    } = &e.kind
    else {
        return;
    };
    if function != "format" || !is_string_format(checked, e.id) {
        return;
    }
    let (ExprKind::Literal(Literal::String(format)), [list]) = (&target.kind, args.as_slice())
    else {
        return;
    };
    let ExprKind::List { elements, .. } = &list.kind else {
        return;
    };
    let mut checker = FormatChecker {
        checked,
        args: elements,
        requested: 0,
    };
    match checker.parse(format) {
        Err((id, message)) => issues.push((id.unwrap_or(e.id), message)),
        Ok(()) if elements.len() > checker.requested => issues.push((
            e.id,
            format!(
                "too many arguments supplied to string.format (expected {}, got {})",
                checker.requested,
                elements.len()
            ),
        )),
        Ok(()) => {}
    }
}

/// The call resolved to the extension's `string_format` overload.
fn is_string_format(checked: &Checked, id: Id) -> bool {
    match checked.refs.get(&id) {
        Some(Reference::Overloads(ids)) => ids.is_empty() || ids.contains(&"string_format"),
        _ => true,
    }
}

/// A failure: the argument it concerns (else the call) and cel-go's text.
type Failure = (Option<Id>, String);

struct FormatChecker<'c> {
    checked: &'c Checked,
    args: &'c [Expr],
    requested: usize,
}

/// What a clause accepts, by type kind, and how it names itself when refusing.
enum Clause {
    /// `%s`, which also looks into list and map literals.
    String,
    Typed {
        accepts: fn(&Type) -> bool,
        refusal: &'static str,
    },
}

impl FormatChecker<'_> {
    /// cel-go's `parseFormatString` with the checking interpolator.
    fn parse(&mut self, format: &str) -> Result<(), Failure> {
        let bytes = format.as_bytes();
        let mut i = 0;
        let mut arg_index = 0;
        while i < bytes.len() {
            if bytes[i] != b'%' {
                i += 1;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            self.requested += 1;
            if i + 1 >= bytes.len() {
                return Err((None, "unexpected end of string".to_string()));
            }
            if arg_index >= self.args.len() {
                return Err((None, format!("index {arg_index} out of range")));
            }
            let (read, clause) = parse_clause(&bytes[i + 1..])
                .map_err(|e| (None, format!("could not parse formatting clause: {e}")))?;
            self.check_arg(&self.args[arg_index], &clause)
                .map_err(|(id, e)| (Some(id), format!("error during formatting: {e}")))?;
            i += 1 + read;
            arg_index += 1;
        }
        Ok(())
    }

    fn check_arg(&self, arg: &Expr, clause: &Clause) -> Result<(), (Id, String)> {
        let Clause::Typed { accepts, refusal } = clause else {
            return self.verify_string(arg);
        };
        let t = self.checked.type_of(arg.id);
        if matches!(t, Type::Dyn) || accepts(t) {
            return Ok(());
        }
        Err((arg.id, format!("{refusal}, was given {}", type_name(t))))
    }

    /// `%s`: the argument, and the elements of a list or map literal, recursively.
    fn verify_string(&self, arg: &Expr) -> Result<(), (Id, String)> {
        let t = self.checked.type_of(arg.id);
        if !matches!(t, Type::Dyn) && !string_accepts(t) {
            let message = format!("{STRING_REFUSAL}, was given {}", type_name(t));
            return Err((arg.id, message));
        }
        match &arg.kind {
            ExprKind::List { elements, .. } => {
                elements.iter().try_for_each(|x| self.verify_string(x))
            }
            ExprKind::Map { entries } => entries.iter().try_for_each(|x| {
                self.verify_string(&x.key)?;
                self.verify_string(&x.value)
            }),
            _ => Ok(()),
        }
    }
}

const STRING_REFUSAL: &str = "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps";

fn string_accepts(t: &Type) -> bool {
    matches!(
        t,
        Type::List(_)
            | Type::Map(..)
            | Type::Int
            | Type::Uint
            | Type::Double
            | Type::Bool
            | Type::String
            | Type::Timestamp
            | Type::Bytes
            | Type::Duration
            | Type::Type(_)
            | Type::Null
    )
}

/// cel-go's `parseFormattingClause` after the `%`: bytes read and the clause.
fn parse_clause(s: &[u8]) -> Result<(usize, Clause), String> {
    let read = parse_precision(s).map_err(|e| format!("error while parsing precision: {e}"))?;
    // Precision parsing stops before the end, so a verb byte follows.
    let verb = s.get(read).copied().unwrap_or_default();
    let kind = match verb {
        b's' => Clause::String,
        b'd' => Clause::Typed {
            accepts: |t| matches!(t, Type::Int | Type::Uint),
            refusal: "decimal clause can only be used on integers",
        },
        b'f' => Clause::Typed {
            accepts: |t| matches!(t, Type::Double | Type::String),
            refusal: "fixed-point clause can only be used on doubles",
        },
        b'e' => Clause::Typed {
            accepts: |t| matches!(t, Type::Double | Type::String),
            refusal: "scientific clause can only be used on doubles",
        },
        b'b' => Clause::Typed {
            accepts: |t| matches!(t, Type::Int | Type::Uint | Type::Bool),
            refusal: "only integers and bools can be formatted as binary",
        },
        b'x' | b'X' => Clause::Typed {
            accepts: |t| matches!(t, Type::Int | Type::Uint | Type::String | Type::Bytes),
            refusal: "only integers, byte buffers, and strings can be formatted as hex",
        },
        b'o' => Clause::Typed {
            accepts: |t| matches!(t, Type::Int | Type::Uint),
            refusal: "octal clause can only be used on integers",
        },
        // Go's `%c` of the byte as a rune.
        other => {
            return Err(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            ));
        }
    };
    Ok((read + 1, kind))
}

/// cel-go's `parsePrecision` (no maximum before strings version 5): bytes read.
fn parse_precision(s: &[u8]) -> Result<usize, String> {
    if s.first() != Some(&b'.') {
        return Ok(0);
    }
    let digits = s[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if 1 + digits >= s.len() {
        return Err("could not find end of precision specifier".to_string());
    }
    let text = String::from_utf8_lossy(&s[1..1 + digits]);
    if text.is_empty() {
        return Err(
            "error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
                .to_string(),
        );
    }
    if text.parse::<i64>().is_err() {
        return Err(format!(
            "error while converting precision to integer: strconv.Atoi: parsing \"{text}\": value out of range"
        ));
    }
    Ok(1 + digits)
}

/// cel-go's `Type.TypeName()` of a checked type.
fn type_name(t: &Type) -> String {
    match t {
        Type::List(_) => "list".to_string(),
        Type::Map(..) => "map".to_string(),
        Type::Optional(_) => "optional_type".to_string(),
        Type::Type(_) => "type".to_string(),
        Type::Null => "null_type".to_string(),
        other => other.to_string(),
    }
}
