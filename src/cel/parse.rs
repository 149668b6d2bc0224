//! Parsing: the `cel` crate's parser (cel-go's ANTLR grammar) into our tree, with
//! macros expanded, limits applied and errors printed as cel-go's parser does.

mod convert;
#[cfg(test)]
mod debug;
mod errors;
mod ext;
mod helper;
mod limits;
mod macros;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_limits;
#[cfg(test)]
mod tests_macros;

use crate::cel::ast::{Ast, Source};
use errors::Issue;

pub use macros::ACCUMULATOR;

/// Stack for one parse. The crate's parser, its visitor and the drop of its trees
/// recurse once per nesting level and per chained operator (up to tens of KiB a
/// level in debug builds), and a chain like `1+1+...+1` is only refused after
/// parsing (cel-go's visitor limit); the pages are reserved, not committed.
const PARSE_STACK: usize = 512 << 20;
/// The crate's own `expr` nesting limit, only a backstop: it counts differently
/// from cel-go, whose limit [`limits::expr_depth`] applies before parsing.
const CRATE_RECURSION_LIMIT: u16 = 1000;

const EMPTY: &str = "ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting \
    {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, \
    BYTES, IDENTIFIER}";

/// Parses a CEL expression as kube's cel-go environment parses it (optional syntax
/// on, kube's macros expanded, cel-go's default limits), or returns cel-go's error
/// text (`ERROR: <input>:1:6: ...` with the line and a caret, one per error).
pub fn parse(text: &str) -> Result<Ast, String> {
    if text.is_empty() {
        // Go's ANTLR places the end of an empty input at column -1.
        return Err(EMPTY.to_string());
    }
    let size = text.chars().count();
    if size > limits::CODE_POINT_LIMIT {
        return Err(message(text, limits::code_points_message(size)));
    }
    if limits::expr_depth(text) > limits::RECURSION_LIMIT {
        return Err(message(text, limits::listener_message()));
    }
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("cel-parse".into())
            .stack_size(PARSE_STACK)
            .spawn_scoped(scope, || parse_here(text));
        match parser {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(message(text, "internal error: parser failed".into()))),
            Err(e) => Err(message(
                text,
                format!("internal error: cannot start parser: {e}"),
            )),
        }
    })
}

fn parse_here(text: &str) -> Result<Ast, String> {
    let parser = cel::Env::default()
        .parser()
        .enable_ident_escape_syntax(true)
        .max_recursion_depth(CRATE_RECURSION_LIMIT);
    let (root, info) = match parser.parse_with_source_info(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            let issues = errors::translate(&e, &limits::listener_message());
            return Err(errors::render(&bare(text), issues));
        }
    };
    if limits::visitor_depth(&root) > limits::RECURSION_LIMIT {
        return Err(message(text, limits::VISITOR_MESSAGE.into()));
    }
    let mut converter = convert::Converter::new(text, &info, &root);
    let expr = converter.convert(root);
    if !converter.issues.is_empty() {
        return Err(errors::render(&converter.source, converter.issues));
    }
    Ok(Ast {
        expr,
        source: converter.source,
    })
}

fn bare(text: &str) -> Source {
    Source {
        text: text.to_string(),
        offsets: Default::default(),
    }
}

/// One error without a position (cel-go's `NoLocation`).
fn message(text: &str, message: String) -> String {
    errors::render(&bare(text), vec![Issue::nowhere(message)])
}
