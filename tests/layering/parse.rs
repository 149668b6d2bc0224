//! The parsing core of the layering check: source text into the top-level modules it
//! refers to, and the out-of-line test modules it declares. Pure, table-tested.

use crate::lex::{Token, tokens, tokens_with_strings};

/// The top-level modules `text` refers to, with the line of each reference: the first
/// segment after `crate::` (each item of a `crate::{..}` group), or after as many
/// `super::` as climb to the crate root from `depth` (inline `mod x { }` blocks add a
/// level). `#[cfg(test)] mod x { .. }` blocks, comments and literals are skipped.
pub(crate) fn references(text: &str, depth: usize) -> Vec<(usize, String)> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    // Brace depths at which inline modules opened.
    let mut inline_mods: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].1 {
            Token::Punct('#') if test_attribute_at(&tokens, i) => {
                if let Some(end) = cfg_test_inline_module_end(&tokens, i) {
                    i = end + 1;
                    continue;
                }
            }
            Token::Ident(kw) if kw == "mod" => {
                if matches!(tokens.get(i + 2), Some((_, Token::Punct('{')))) {
                    inline_mods.push(braces);
                }
            }
            Token::Punct('{') => braces += 1,
            Token::Punct('}') => {
                braces = braces.saturating_sub(1);
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
            }
            Token::Ident(kw) if kw == "crate" && !after_path_sep(&tokens, i) => {
                if let Some((_, Token::PathSep)) = tokens.get(i + 1) {
                    path_targets(&tokens, i + 2, &mut found);
                }
            }
            Token::Ident(kw) if kw == "super" && !after_path_sep(&tokens, i) => {
                let mut j = i;
                let mut climbs = 0;
                while matches!(&tokens.get(j), Some((_, Token::Ident(s))) if s == "super")
                    && matches!(tokens.get(j + 1), Some((_, Token::PathSep)))
                {
                    climbs += 1;
                    j += 2;
                }
                if climbs > 0 && climbs >= depth + inline_mods.len() {
                    path_targets(&tokens, j, &mut found);
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The out-of-line test modules a file declares: `#[cfg(test)] mod x;`, with the
/// `#[path = ".."]` given, if any.
pub(crate) fn test_module_files(text: &str) -> Vec<(String, Option<String>)> {
    let tokens = tokens_with_strings(text);
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        if !test_attribute_at(&tokens, i) {
            continue;
        }
        let (item, path) = after_attributes(&tokens, i);
        let item = after_visibility(&tokens, item);
        if let (
            Some((_, Token::Ident(m))),
            Some((_, Token::Ident(name))),
            Some((_, Token::Punct(';'))),
        ) = (tokens.get(item), tokens.get(item + 1), tokens.get(item + 2))
            && m == "mod"
        {
            found.push((name.clone(), path));
        }
    }
    found
}

fn after_path_sep(tokens: &[(usize, Token)], i: usize) -> bool {
    i > 0 && tokens[i - 1].1 == Token::PathSep
}

/// The targets of a path continuing at `i` (just after `crate::`): one segment, or
/// each item of a `{..}` group (nested groups belong to their item).
fn path_targets(tokens: &[(usize, Token)], i: usize, found: &mut Vec<(usize, String)>) {
    match tokens.get(i) {
        Some((line, Token::Ident(name))) => found.push((*line, name.clone())),
        Some((_, Token::Punct('{'))) => {
            let mut depth = 0usize;
            let mut item_start = true;
            for (line, token) in &tokens[i..] {
                match token {
                    Token::Punct('{') => {
                        depth += 1;
                        item_start = depth == 1;
                        continue;
                    }
                    Token::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            return;
                        }
                    }
                    Token::Punct(',') if depth == 1 => {
                        item_start = true;
                        continue;
                    }
                    Token::Ident(name) if item_start && depth == 1 && name != "self" => {
                        found.push((*line, name.clone()));
                    }
                    _ => {}
                }
                item_start = false;
            }
        }
        _ => {}
    }
}

/// `#[cfg(test)]` starts at `i`.
fn test_attribute_at(tokens: &[(usize, Token)], i: usize) -> bool {
    let want = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    tokens.len() >= i + want.len()
        && tokens[i..i + want.len()]
            .iter()
            .map(|(_, t)| t)
            .eq(want.iter())
}

/// When the `#[cfg(test)]` at `i` opens an inline `mod x { .. }`, the index of its
/// closing brace.
fn cfg_test_inline_module_end(tokens: &[(usize, Token)], i: usize) -> Option<usize> {
    let (item, _) = after_attributes(tokens, i);
    let item = after_visibility(tokens, item);
    match (tokens.get(item), tokens.get(item + 1), tokens.get(item + 2)) {
        (Some((_, Token::Ident(m))), Some((_, Token::Ident(_))), Some((_, Token::Punct('{'))))
            if m == "mod" =>
        {
            matching_brace(tokens, item + 2)
        }
        _ => None,
    }
}

/// The index after the attributes starting at `i`, and the value of a `#[path = ".."]`
/// among them (a string literal token, kept only by [`tokens_with_strings`]).
fn after_attributes(tokens: &[(usize, Token)], mut i: usize) -> (usize, Option<String>) {
    let mut path = None;
    while matches!(tokens.get(i), Some((_, Token::Punct('#'))))
        && matches!(tokens.get(i + 1), Some((_, Token::Punct('['))))
    {
        if let (
            Some((_, Token::Ident(p))),
            Some((_, Token::Punct('='))),
            Some((_, Token::Ident(value))),
        ) = (tokens.get(i + 2), tokens.get(i + 3), tokens.get(i + 4))
            && p == "path"
        {
            path = value
                .strip_prefix('"')
                .map(|v| v.trim_end_matches('"').to_owned());
        }
        match matching(tokens, i + 1, '[', ']') {
            Some(end) => i = end + 1,
            None => return (tokens.len(), path),
        }
    }
    (i, path)
}

/// The index after `pub`, `pub(crate)`, `pub(super)`, `pub(in ..)` at `i`, if any.
fn after_visibility(tokens: &[(usize, Token)], i: usize) -> usize {
    match (tokens.get(i), tokens.get(i + 1)) {
        (Some((_, Token::Ident(p))), Some((_, Token::Punct('(')))) if p == "pub" => {
            matching(tokens, i + 1, '(', ')').map_or(i, |end| end + 1)
        }
        (Some((_, Token::Ident(p))), _) if p == "pub" => i + 1,
        _ => i,
    }
}

fn matching_brace(tokens: &[(usize, Token)], open: usize) -> Option<usize> {
    matching(tokens, open, '{', '}')
}

/// The index of the `close` matching the `open` at `start`.
fn matching(tokens: &[(usize, Token)], start: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (k, (_, token)) in tokens.iter().enumerate().skip(start) {
        if *token == Token::Punct(open) {
            depth += 1;
        } else if *token == Token::Punct(close) {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// (line, module) expected of [`references`].
type WantedReferences = [(usize, &'static str)];
/// (module, `#[path]`) expected of [`test_module_files`].
type WantedTestModules = [(&'static str, Option<&'static str>)];

#[test]
fn references_of_source_text_find_each_top_level_module() {
    let cases: &[(&str, &str, usize, &WantedReferences)] = &[
        (
            "plain use",
            "use crate::storage::Store;\n",
            1,
            &[(1, "storage")],
        ),
        (
            "pub and pub(crate) use",
            "pub use crate::error::ApiError;\npub(crate) use crate::meta::rules;\n",
            1,
            &[(1, "error"), (2, "meta")],
        ),
        (
            "grouped use",
            "use crate::{error::ApiError, request, storage::Store as S};\n",
            1,
            &[(1, "error"), (1, "request"), (1, "storage")],
        ),
        (
            "nested groups belong to their item",
            "use crate::{schema::{rules::{Rule, Tree}, Schema}, watch::{self, Event}};\n",
            1,
            &[(1, "schema"), (1, "watch")],
        ),
        (
            "multi-line use",
            "use crate::{\n    error::ApiError,\n    request::{\n        RequestInfo,\n    },\n};\n",
            1,
            &[(2, "error"), (3, "request")],
        ),
        (
            "path in an expression and in a type",
            "fn f() -> crate::error::Result<()> {\n    let x = crate::gofmt::quote(\"a\");\n    Ok(())\n}\n",
            1,
            &[(1, "error"), (2, "gofmt")],
        ),
        (
            "in an attribute",
            "#[arg(default_value_t = crate::watch::limit::MAX)]\nmax: usize,\n",
            2,
            &[(1, "watch")],
        ),
        (
            "comments are not code",
            "// use crate::server;\n/// see crate::handlers::x\n/* crate::authn /* nested */ crate::authz */\n//! crate::cel\n",
            1,
            &[],
        ),
        (
            "string literals are not code",
            "let a = \"use crate::server\";\nlet b = r#\"crate::x \"q\" \"#;\nlet c = b\"crate::y\";\nlet d = \"\\\"crate::z\";\n",
            1,
            &[],
        ),
        (
            "char literals and lifetimes do not open strings",
            "fn f<'a>(s: &'a str) -> char { if s == \"x\" { '\"' } else { '\\'' } }\nuse crate::meta;\n",
            1,
            &[(2, "meta")],
        ),
        (
            "a cfg(test) mod block is skipped, the code after it is not",
            "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n    fn f() { let _ = crate::c::g(); }\n}\nuse crate::d;\n",
            1,
            &[(1, "a"), (7, "d")],
        ),
        (
            "a cfg(test) mod with more attributes and visibility is skipped",
            "#[cfg(test)]\n#[allow(dead_code)]\npub(crate) mod testing { use crate::b; }\n",
            1,
            &[],
        ),
        (
            "a cfg(test) function is still code",
            "#[cfg(test)]\nfn helper() { crate::storage::x(); }\n",
            1,
            &[(2, "storage")],
        ),
        (
            "pub(crate) and crate-visibility are not references",
            "pub(crate) fn f() {}\npub(in crate::x) fn g() {}\n",
            2,
            &[(2, "x")],
        ),
        (
            "super that climbs to the crate root",
            "use super::server::Config;\nuse super::{metrics, error::E};\n",
            1,
            &[(1, "server"), (2, "metrics"), (2, "error")],
        ),
        (
            "super that stays inside the module",
            "use super::chain;\nuse super::super::x;\n",
            3,
            &[],
        ),
        (
            "super inside an inline module climbs one level less",
            "mod inner {\n    use super::local;\n    use super::super::storage;\n}\nuse super::crd;\n",
            1,
            &[(3, "storage"), (5, "crd")],
        ),
    ];
    for (name, text, depth, want) in cases {
        let want: Vec<(usize, String)> = want.iter().map(|(l, m)| (*l, (*m).to_owned())).collect();
        assert_eq!(references(text, *depth), want, "case {name}:\n{text}");
    }
}

#[test]
fn test_module_files_of_source_text_find_cfg_test_declarations() {
    let cases: &[(&str, &str, &WantedTestModules)] = &[
        (
            "plain",
            "#[cfg(test)]\nmod tests_rules;\nmod real;\n",
            &[("tests_rules", None)],
        ),
        (
            "with a path",
            "#[cfg(test)]\n#[path = \"value_tests.rs\"]\nmod tests;\n",
            &[("tests", Some("value_tests.rs"))],
        ),
        (
            "with visibility",
            "#[cfg(test)]\npub(crate) mod testutil;\n",
            &[("testutil", None)],
        ),
        ("inline is not a file", "#[cfg(test)]\nmod tests {}\n", &[]),
        (
            "not cfg(test)",
            "#[cfg(feature = \"x\")]\nmod other;\n",
            &[],
        ),
    ];
    for (name, text, want) in cases {
        let want: Vec<(String, Option<String>)> = want
            .iter()
            .map(|(m, p)| ((*m).to_owned(), p.map(str::to_owned)))
            .collect();
        assert_eq!(test_module_files(text), want, "case {name}:\n{text}");
    }
}
