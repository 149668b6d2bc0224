//! What libyaml's parser expected when it met an unexpected token: replayed from
//! serde-saphyr's own scanner tokens, because its checks fire where libyaml's parser's do not.

use serde_saphyr::granit_parser::{Scanner, StrInput, TokenType};

use super::text;

/// The collection a token sits in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Frame {
    FlowSequence,
    FlowMapping,
    BlockSequence,
    BlockMapping,
    /// A `key: value` entry of a flow sequence: ends at the sequence's `,` or `]`.
    ImplicitMapping,
}

/// The parser state before an offending token.
#[derive(Debug)]
pub struct Context {
    frames: Vec<Frame>,
    /// The last token finished a node (so a separator or key comes next, not content).
    pub after_node: bool,
    /// Where the last token seen ends.
    pub end: usize,
}

impl Context {
    /// Replays the tokens before byte `limit`, where the offending token starts. serde-saphyr's
    /// scanner fails early on an unclosed bracket and holds tokens back while a simple key may
    /// follow, so what it has not handed over is read by [`Context::lex`].
    pub fn before(text: &str, limit: usize) -> Context {
        let head = text.get(..limit).unwrap_or(text);
        let mut context = Context {
            frames: Vec::new(),
            after_node: false,
            end: 0,
        };
        for token in Scanner::new(StrInput::new(head)) {
            let Ok(token) = token else { break };
            let (span, kind) = token.into_parts();
            let start = span.start.byte_offset().unwrap_or(span.start.index());
            // Tokens at the cut (block ends, stream end) are artifacts of the cut.
            if start >= head.len() {
                break;
            }
            let end = span.end.byte_offset().unwrap_or(span.end.index());
            context.end = context.end.max(end);
            context.push(&kind, start == end);
        }
        context.lex(head);
        context
    }

    fn push(&mut self, kind: &TokenType<'_>, virtual_token: bool) {
        self.after_node = match kind {
            TokenType::FlowSequenceStart => self.open(Frame::FlowSequence),
            TokenType::FlowMappingStart if virtual_token => self.open(Frame::ImplicitMapping),
            TokenType::FlowMappingStart => self.open(Frame::FlowMapping),
            TokenType::BlockSequenceStart => self.open(Frame::BlockSequence),
            TokenType::BlockMappingStart => self.open(Frame::BlockMapping),
            TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd | TokenType::BlockEnd => {
                self.frames.pop();
                true
            }
            TokenType::Scalar(..)
            | TokenType::Alias(_)
            | TokenType::Anchor(_)
            | TokenType::Tag(..) => true,
            _ => false,
        };
    }

    /// Reads flow-level structure from `end` to the end of `head`: brackets, separators,
    /// indicators and whole scalars, enough to know what libyaml's parser expects next.
    fn lex(&mut self, head: &str) {
        let mut at = self.end;
        while let Some(c) = head[at..].chars().next() {
            let rest = &head[at + c.len_utf8()..];
            let indicator = rest.chars().next().is_none_or(|n| self.ends_plain(n));
            at += c.len_utf8();
            match c {
                ' ' | '\t' | '\n' | '\r' => continue,
                '#' => at += rest.find(['\n', '\r']).unwrap_or(rest.len()),
                '[' => self.after_node = self.open(Frame::FlowSequence),
                '{' => self.after_node = self.open(Frame::FlowMapping),
                ']' | '}' | ',' => {
                    if self.frames.last() == Some(&Frame::ImplicitMapping) {
                        self.frames.pop();
                    }
                    if c != ',' {
                        self.frames.pop();
                    }
                    self.after_node = c != ',';
                }
                ':' | '?' | '-' if indicator => self.after_node = false,
                '"' | '\'' => {
                    at += text::quoted_len(rest, c);
                    self.after_node = true;
                }
                _ => {
                    let in_flow = self.in_flow();
                    at += rest
                        .find(|n: char| {
                            n.is_whitespace() || (in_flow && ",[]{}".contains(n)) || n == ':'
                        })
                        .unwrap_or(rest.len());
                    self.after_node = true;
                }
            }
        }
    }

    fn in_flow(&self) -> bool {
        self.frames
            .iter()
            .any(|f| matches!(f, Frame::FlowSequence | Frame::FlowMapping))
    }

    /// A character that ends a plain scalar after an indicator (`:`, `?`, `-`).
    fn ends_plain(&self, c: char) -> bool {
        c.is_whitespace() || (self.in_flow() && ",[]{}".contains(c))
    }

    fn open(&mut self, frame: Frame) -> bool {
        self.frames.push(frame);
        false
    }

    /// libyaml's parser problem for an unexpected token here, or `None` when the token
    /// follows a complete top-level node: go-yaml's document ends there without looking.
    pub fn problem(&self) -> Option<&'static str> {
        if !self.after_node {
            return Some("did not find expected node content");
        }
        let frame = self
            .frames
            .iter()
            .rev()
            .find(|f| **f != Frame::ImplicitMapping);
        frame.map(|frame| match frame {
            Frame::FlowSequence | Frame::ImplicitMapping => "did not find expected ',' or ']'",
            Frame::FlowMapping => "did not find expected ',' or '}'",
            Frame::BlockSequence => "did not find expected '-' indicator",
            Frame::BlockMapping => "did not find expected key",
        })
    }
}
