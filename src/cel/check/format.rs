//! Type and signature texts in checker messages, as cel-go's `FormatCELType` writes
//! them (`duration`, `timestamp`, `null`, `!error!`, `list(int)`, `type(int)`).

use crate::cel::types::Type;

pub(super) fn format_type(t: &Type) -> String {
    match t {
        Type::Duration => "duration".to_string(),
        Type::Timestamp => "timestamp".to_string(),
        Type::Null => "null".to_string(),
        Type::Error => "!error!".to_string(),
        Type::List(e) => format!("list({})", format_type(e)),
        Type::Map(k, v) => format!("map({}, {})", format_type(k), format_type(v)),
        Type::Optional(e) => format!("optional_type({})", format_type(e)),
        // The `type` identifier: the type of the type `type` (our `type(dyn)`).
        Type::Type(e) if matches!(&**e, Type::Type(d) if matches!(**d, Type::Dyn)) => {
            "type(type)".to_string()
        }
        Type::Type(e) => format!("type({})", format_type(e)),
        other => other.to_string(),
    }
}

/// The argument list of a call: `(int, string)`, or `string.(int)` for a receiver call.
pub(super) fn format_call(args: &[Type], member: bool) -> String {
    let (target, args) = match (member, args.split_first()) {
        (true, Some((target, rest))) => (Some(target), rest),
        _ => (None, args),
    };
    let list: Vec<String> = args.iter().map(format_type).collect();
    match target {
        Some(t) => format!("{}.({})", format_type(t), list.join(", ")),
        None => format!("({})", list.join(", ")),
    }
}
