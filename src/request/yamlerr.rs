//! YAML body decoding errors in kube's words: what sigs.k8s.io/yaml (go-yaml v2, a libyaml
//! port) says about a body serde-saphyr refused, and where go-yaml stops reading a body.
//!
//! go-yaml prints `yaml: line N: <problem>` (`parser.fail`): N is the problem's 0-based line
//! for a parser problem but one more for a scanner problem, and `line N: ` is left out when
//! the 0-based line is 0. serde-saphyr's parser is a libyaml descendant, so its structured
//! error (kind and marker) maps onto libyaml's problem; where its checks fire elsewhere, the
//! source text or its token stream tells where libyaml would have stopped.

mod aliasing;
mod context;
#[cfg(test)]
mod tests;
pub(crate) mod text;

use std::borrow::Cow;

use serde_saphyr::granit_parser::{ErrorKind as Kind, Event, Parser, ScanError};
use serde_saphyr::{Error, ExternalMessageSource};

use context::Context;

/// go-yaml's refusal of a document whose aliases expand past its budget.
const EXCESSIVE_ALIASING: &str = "document contains excessive aliasing";

/// The libyaml stage (or later step) that reports a problem; it decides how the line prints.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// Input decoding: no line.
    Reader,
    Scanner,
    Parser,
    /// go-yaml's node decoding (`failf`): no line.
    Decoder,
    /// encoding/json on the converted value: no `yaml: ` either.
    Json,
}

/// A problem as go-yaml reports it; `line` is libyaml's 0-based problem line.
#[derive(Debug)]
struct Problem {
    stage: Stage,
    line: usize,
    text: Cow<'static, str>,
}

impl Problem {
    fn new(stage: Stage, line: usize, text: impl Into<Cow<'static, str>>) -> Problem {
        Problem {
            stage,
            line,
            text: text.into(),
        }
    }

    /// The text sigs.k8s.io/yaml's YAMLToJSON returns.
    fn render(&self) -> String {
        let line = match self.stage {
            Stage::Scanner if self.line != 0 => Some(self.line + 1),
            Stage::Parser if self.line != 0 => Some(self.line),
            Stage::Json => return self.text.to_string(),
            _ => None,
        };
        match line {
            Some(line) => format!("yaml: line {line}: {}", self.text),
            None => format!("yaml: {}", self.text),
        }
    }
}

/// What go-yaml makes of a body serde-saphyr refused.
#[derive(Debug)]
enum Verdict {
    Fails(Problem),
    /// go-yaml decodes one document and stops at this byte offset without an error.
    StopsAt(usize),
}

/// Decodes the first YAML document of a body as go-yaml does; the error is the text
/// sigs.k8s.io/yaml's YAMLToJSON returns (`yaml: line 3: did not find expected key`).
pub fn decode<T>(body: &[u8], parse: impl Fn(&str) -> Result<T, Error>) -> Result<T, String> {
    let text = read(body).map_err(|p| p.render())?;
    // Before anything replays an alias: refusing a bomb costs one pass over its events.
    // Without an `&` there is no anchor, so no alias to count (most bodies).
    if text.contains('&') && aliasing::excessive(text) {
        return Err(Problem::new(Stage::Decoder, 0, EXCESSIVE_ALIASING).render());
    }
    let mut end = text.len();
    // A body is cut at most twice: after its first document, then after its root node.
    for _ in 0..3 {
        let input = &text[..end];
        match parse(input) {
            Ok(value) => return Ok(value),
            Err(err) => match verdict(input, &err) {
                Verdict::StopsAt(at) if at < end => end = at,
                Verdict::StopsAt(_) => return Err(fallback(&err)),
                Verdict::Fails(problem) => return Err(problem.render()),
            },
        }
    }
    parse(&text[..end]).map_err(|err| fallback(&err))
}

/// libyaml's reader: UTF-8 only, and no control characters anywhere in the input.
fn read(body: &[u8]) -> Result<&str, Problem> {
    let (valid, rest) = match std::str::from_utf8(body) {
        Ok(text) => (text, None),
        Err(e) => {
            let (head, rest) = body.split_at(e.valid_up_to());
            (std::str::from_utf8(head).unwrap_or_default(), Some(rest))
        }
    };
    if valid.chars().any(|c| !text::is_printable(c)) {
        return Err(Problem::new(
            Stage::Reader,
            0,
            "control characters are not allowed",
        ));
    }
    match rest {
        Some(rest) => Err(Problem::new(Stage::Reader, 0, text::utf8_problem(rest))),
        None => Ok(valid),
    }
}

/// serde-saphyr's own words, for problems go-yaml has no counterpart for.
fn plain(err: &Error) -> String {
    err.without_snippet().to_string()
}

fn fallback(err: &Error) -> String {
    format!("yaml: {}", plain(err))
}

fn verdict(text: &str, err: &Error) -> Verdict {
    let err = err.without_snippet();
    let at = |line: u64, column: u64| text::offset_of(text, line as usize, column as usize);
    let offset = err
        .location()
        .map_or(text.len(), |l| at(l.line(), l.column()));
    let decoder = |message: String| Verdict::Fails(Problem::new(Stage::Decoder, 0, message));
    match err {
        Error::ExternalMessage { source, .. } => match source.as_ref() {
            ExternalMessageSource::Parser(scan) => scan_verdict(text, scan),
            _ => decoder(plain(err)),
        },
        Error::MultipleDocuments { .. } => Verdict::StopsAt(first_document_end(text)),
        Error::UnknownAnchor { .. } => decoder(format!(
            "unknown anchor '{}' referenced",
            text::alias_name(text, offset)
        )),
        Error::RecursiveReferencesRequireWeakTypes { .. } => decoder(format!(
            "anchor '{}' value contains itself",
            text::alias_name(text, offset)
        )),
        Error::InvalidBinaryBase64 { .. } => {
            decoder("!!binary value contains invalid base64 data".into())
        }
        Error::AliasReplayLimitExceeded { .. }
        | Error::AliasExpansionLimitExceeded { .. }
        | Error::AliasReplayStackDepthExceeded { .. } => decoder(EXCESSIVE_ALIASING.into()),
        Error::InvalidScalar { ty, .. } => match go_tag(ty) {
            Some(tag) => {
                let (value, resolved) = text::scalar_at(text, offset);
                decoder(format!("cannot decode {resolved} `{value}` as a {tag}"))
            }
            None => decoder(plain(err)),
        },
        Error::NonFiniteFloat { value, .. } => {
            let value = match value.to_ascii_lowercase() {
                v if v.contains("nan") => "NaN",
                v if v.starts_with('-') => "-Inf",
                _ => "+Inf",
            };
            Verdict::Fails(Problem::new(
                Stage::Json,
                0,
                format!("json: unsupported value: {value}"),
            ))
        }
        _ => decoder(plain(err)),
    }
}

/// The YAML 1.1 tag go-yaml names for a scalar serde-saphyr could not read as `ty`.
fn go_tag(ty: &str) -> Option<&'static str> {
    match ty {
        "boolean" | "bool" => Some("!!bool"),
        t if t.contains("float") || t.starts_with('f') => Some("!!float"),
        t if t.starts_with(['u', 'i']) && t[1..].chars().all(|c| c.is_ascii_digit()) => {
            Some("!!int")
        }
        _ => None,
    }
}

/// Byte offset where the first document ends (its `...`, the next `---`, or the end).
fn first_document_end(text: &str) -> usize {
    let ends = Parser::new_from_str(text).map_while(Result::ok);
    let mut ends = ends.filter(|(event, _)| matches!(event, Event::DocumentEnd));
    let start = ends.next().map(|(_, span)| span.start);
    start.map_or(text.len(), |m| {
        m.byte_offset()
            .unwrap_or_else(|| text::offset_of_char(text, m.index()))
    })
}

fn scan_verdict(text: &str, scan: &ScanError) -> Verdict {
    let mark = scan.marker();
    let at = mark
        .byte_offset()
        .unwrap_or_else(|| text::offset_of_char(text, mark.index()));
    let line = text::line_at(text, at);
    let scanner = |line: usize, problem: &'static str| {
        Verdict::Fails(Problem::new(Stage::Scanner, line, problem))
    };
    let parser = |line: usize, problem: &'static str| {
        Verdict::Fails(Problem::new(Stage::Parser, line, problem))
    };
    match scan.kind() {
        Kind::ExpectedFlowMappingSeparator => parser(line, "did not find expected ',' or '}'"),
        Kind::ExpectedFlowSequenceSeparator => parser(line, "did not find expected ',' or ']'"),
        Kind::ExpectedBlockMappingKey => parser(line, "did not find expected key"),
        Kind::ExpectedBlockSequenceEntry => parser(line, "did not find expected '-' indicator"),
        Kind::ExpectedNodeContent => parser(line, "did not find expected node content"),
        Kind::ExpectedDocumentStart => parser(line, "did not find expected <document start>"),
        Kind::UndeclaredTagHandle => parser(line, "found undefined tag handle"),
        Kind::DuplicateVersionDirective => parser(line, "found duplicate %YAML directive"),
        Kind::UnsupportedYamlMajorVersion => parser(line, "found incompatible YAML document"),
        Kind::DuplicateTagDirective => parser(line, "found duplicate %TAG directive"),
        Kind::UnclosedFlowCollection { .. }
        | Kind::UnexpectedEofFlowSequence
        | Kind::UnexpectedEofFlowMapping => {
            let context = Context::before(text, text.len());
            unexpected(context, text.len(), text::stream_end_line(text))
        }
        // Reported at the opening bracket; libyaml's parser stops at the closing one.
        Kind::MismatchedFlowCollectionEnd { close, .. } => {
            let bracket = text[at..].find(*close).map_or(text.len(), |i| at + i);
            let context = Context::before(text, bracket);
            unexpected(context, bracket, text::line_at(text, bracket))
        }
        Kind::MisplacedFlowCollectionEnd
        | Kind::BlockEntryInFlowCollection
        | Kind::UnexpectedEofImplicitFlowMapping
        | Kind::InvalidColonPlacement => unexpected(Context::before(text, at), at, line),
        // serde-saphyr rejects the rest of the line after a quoted or block scalar; libyaml
        // takes the scalar as a whole node and the parser trips over what follows.
        Kind::InvalidTrailingSingleQuotedScalar
        | Kind::InvalidTrailingDoubleQuotedScalar
        | Kind::InvalidBlockScalarIndent => {
            let mut context = Context::before(text, at);
            context.after_node = true;
            unexpected(context, at, line)
        }
        Kind::MappingValueNotAllowed => {
            scanner(line, "mapping values are not allowed in this context")
        }
        Kind::MappingKeyNotAllowed => scanner(line, "mapping keys are not allowed in this context"),
        Kind::BlockSequenceEntryNotAllowed => scanner(
            line,
            "block sequence entries are not allowed in this context",
        ),
        Kind::SimpleKeyExpected | Kind::InvalidSimpleKey => scanner(
            text::stale_key_line(text, at),
            "could not find expected ':'",
        ),
        Kind::UnexpectedCharacter { .. }
        | Kind::TabInBlockIndentation
        | Kind::TabInIndentation
        | Kind::TabNotAllowed => scanner(line, "found character that cannot start any token"),
        Kind::TabInPlainScalar => scanner(
            text::tab_line(text, at).unwrap_or(line),
            "found a tab character that violates indentation",
        ),
        Kind::TabAtBlockScalarStart => scanner(
            text::tab_line(text, at).unwrap_or(line),
            "found a tab character where an indentation space is expected",
        ),
        // libyaml checks no indentation inside quotes: the scalar runs on to a document
        // marker or the end of input.
        Kind::UnclosedQuotedScalar
        | Kind::InvalidQuotedScalarIndent
        | Kind::DocumentIndicatorInQuotedScalar => match text::document_indicator_line(text, at) {
            Some(line) => scanner(line, "found unexpected document indicator"),
            None => scanner(text::eof_line(text), "found unexpected end of stream"),
        },
        Kind::UnknownQuotedScalarEscape => {
            scanner(escape_line(text, at), "found unknown escape character")
        }
        Kind::InvalidQuotedScalarHexEscape => scanner(
            escape_line(text, at),
            "did not find expected hexdecimal number",
        ),
        Kind::InvalidUnicodeEscape
        | Kind::InvalidLowSurrogateHexEscape
        | Kind::InvalidLowSurrogate
        | Kind::MissingLowSurrogate
        | Kind::UnpairedLowSurrogate => scanner(
            escape_line(text, at),
            "found invalid Unicode character escape code",
        ),
        kind => match scanner_problem(kind) {
            Some(problem) => scanner(line, problem),
            None => Verdict::Fails(Problem::new(Stage::Scanner, line, scan.info())),
        },
    }
}

/// A scanner problem reported where serde-saphyr reports it.
fn scanner_problem(kind: &Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::ZeroBlockScalarIndent => "found an indentation indicator equal to 0",
        Kind::InvalidBlockScalarHeader | Kind::InvalidDirectiveTerminator => {
            "did not find expected comment or line break"
        }
        Kind::UnclosedVerbatimTag => "did not find the expected '>'",
        Kind::InvalidTagTerminator | Kind::InvalidTagDirectiveTerminator => {
            "did not find expected whitespace or line break"
        }
        Kind::MissingTagUri => "did not find expected tag URI",
        Kind::ExpectedTagBang | Kind::ExpectedTagDirectiveBang => "did not find expected '!'",
        Kind::InvalidTagEscape => "did not find URI escaped octet",
        Kind::InvalidTagUtf8LeadingByte => "found an incorrect leading UTF-8 octet",
        Kind::InvalidTagUtf8TrailingByte => "found an incorrect trailing UTF-8 octet",
        Kind::MissingAnchorOrAliasName => "did not find expected alphabetic or numeric character",
        Kind::MissingDirectiveName => "could not find expected directive name",
        Kind::InvalidDirectiveName => "found unexpected non-alphabetical character",
        Kind::MissingYamlVersionSeparator => "did not find expected digit or '.' character",
        Kind::YamlVersionTooLong => "found extremely long version number",
        Kind::MissingYamlVersion => "did not find expected version number",
        _ => return None,
    })
}

/// Line of the escape libyaml rejects in the double-quoted scalar opening at `quote`.
fn escape_line(text: &str, quote: usize) -> usize {
    text::line_at(text, text::bad_escape(text, quote).unwrap_or(quote))
}

/// libyaml's parser meeting a token it did not expect at byte `at` on `line`.
fn unexpected(context: Context, at: usize, line: usize) -> Verdict {
    match context.problem() {
        Some(problem) => Verdict::Fails(Problem::new(Stage::Parser, line, problem)),
        None => Verdict::StopsAt(at),
    }
}
