//! go-yaml's alias budget, counted on the event stream without expanding any alias: a
//! few hundred bytes of nested anchors expand to billions of nodes, so the decoder must
//! refuse them before it replays them.
//!
//! go-yaml's decoder counts every node it decodes (`decodeCount`: the document node,
//! each scalar, collection and alias node, and every node an alias expands to) and
//! those it decodes inside an alias (`aliasCount`), and fails with `document contains
//! excessive aliasing` as soon as `aliasCount > 100 && decodeCount > 1000` and the
//! alias share passes `allowedAliasRatio(decodeCount)`: 99 % up to 400,000 nodes,
//! falling linearly to 10 % at 4,000,000. An alias expands to its anchor's node count,
//! known once the anchored node ends, so one pass over the events, in document order,
//! reaches the verdict go-yaml reaches while decoding (within an expansion both counts
//! only grow and the allowed share only falls, so checking after it is the same as
//! checking within it). Counts saturate: a bomb's counts pass any `u64`.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{Event, Parser};

const ALIAS_RATIO_RANGE_LOW: u64 = 400_000;
const ALIAS_RATIO_RANGE_HIGH: u64 = 4_000_000;

/// Whether go-yaml refuses the first document of `text` for excessive aliasing. A
/// stream that does not parse is left to the decoder, which words its error.
pub fn excessive(text: &str) -> bool {
    let mut count = Counts::default();
    // Open collections: their anchor and node count so far.
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut anchors: HashMap<usize, u64> = HashMap::new();
    for event in Parser::new_from_str(text) {
        let Ok((event, _)) = event else {
            return false;
        };
        let size = match event {
            Event::DocumentStart(..) => {
                count.node(1, 0);
                continue;
            }
            Event::DocumentEnd => return false,
            Event::Scalar(_, _, anchor, _) => {
                if anchor != 0 {
                    anchors.insert(anchor, 1);
                }
                count.node(1, 0);
                1
            }
            Event::Alias(anchor) => {
                // An anchor still open (one containing itself) is the decoder's error.
                let expanded = anchors.get(&anchor).copied().unwrap_or(0);
                count.node(expanded.saturating_add(1), expanded);
                expanded.saturating_add(1)
            }
            Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                count.node(1, 0);
                open.push((anchor, 1));
                0
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some((anchor, size)) = open.pop() else {
                    return false;
                };
                if anchor != 0 {
                    anchors.insert(anchor, size);
                }
                size
            }
            _ => 0,
        };
        if let Some((_, parent)) = open.last_mut() {
            *parent = parent.saturating_add(size);
        }
        if count.excessive() {
            return true;
        }
    }
    false
}

#[derive(Default)]
struct Counts {
    decoded: u64,
    aliased: u64,
}

impl Counts {
    fn node(&mut self, decoded: u64, aliased: u64) {
        self.decoded = self.decoded.saturating_add(decoded);
        self.aliased = self.aliased.saturating_add(aliased);
    }

    fn excessive(&self) -> bool {
        self.aliased > 100
            && self.decoded > 1000
            && self.aliased as f64 / self.decoded as f64 > allowed_alias_ratio(self.decoded)
    }
}

/// go-yaml's `allowedAliasRatio`.
fn allowed_alias_ratio(decoded: u64) -> f64 {
    match decoded {
        d if d <= ALIAS_RATIO_RANGE_LOW => 0.99,
        d if d >= ALIAS_RATIO_RANGE_HIGH => 0.10,
        d => {
            let range = (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW) as f64;
            0.99 - 0.89 * ((d - ALIAS_RATIO_RANGE_LOW) as f64 / range)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` anchors, each a list of ten aliases of the one before.
    fn laughs(levels: usize) -> String {
        let mut text = String::from("a0: &a0 [\"lol\"]\n");
        for level in 1..=levels {
            let prev = format!("*a{}", level - 1);
            let items = [prev.as_str(); 10].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        text
    }

    #[test]
    fn excessive_alias_bombs_and_plain_documents() {
        let wide: String = (0..2000).map(|i| format!("k{i}: v\n")).collect();
        let few_aliases = format!("base: &b {{x: 1}}\n{wide}one: *b\ntwo: *b\n");
        // 150 aliases of a 3-node anchor among 2,000 plain pairs: under 99 %.
        let many_small: String = (0..150).map(|i| format!("r{i}: *b\n")).collect();
        let cases: &[(&str, String, bool)] = &[
            ("nine levels of ten", laughs(9), true),
            ("four levels of ten", laughs(4), true),
            ("two levels of ten", laughs(2), false),
            ("no aliases", wide.clone(), false),
            ("two aliases in a large document", few_aliases, false),
            (
                "many small aliases",
                format!("base: &b {{x: 1}}\n{wide}{many_small}"),
                false,
            ),
            (
                "unknown anchor is the decoder's",
                "a: *nope\n".into(),
                false,
            ),
            ("broken yaml is the decoder's", "a: [\n".into(), false),
        ];
        for (what, text, want) in cases {
            assert_eq!(excessive(text), *want, "{what}");
        }
    }

    #[test]
    fn allowed_alias_ratio_matches_go_yaml() {
        assert_eq!(allowed_alias_ratio(1000), 0.99);
        assert_eq!(allowed_alias_ratio(400_000), 0.99);
        assert_eq!(allowed_alias_ratio(4_000_000), 0.10);
        assert!((allowed_alias_ratio(2_200_000) - 0.545).abs() < 1e-9);
    }

    #[test]
    fn excessive_only_first_document_counts() {
        let text = format!("a: 1\n---\n{}", laughs(9));
        assert!(!excessive(&text));
    }
}
