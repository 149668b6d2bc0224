//! Query-string decoding as Go's `net/url` and apimachinery do it: `url.ParseQuery` pairs,
//! `url.Values.Get`, query booleans, and the `%XX` unescaping that path decoding shares.

/// A query boolean as apimachinery converts it: false only for `0` or (case-folded) `false`;
/// present-but-empty is true.
pub fn query_bool(value: &str) -> bool {
    // Go's strings.EqualFold also folds U+017F (long s) to 's'
    let folded = value.replace('\u{17f}', "s");
    !(value == "0" || folded.eq_ignore_ascii_case("false"))
}

/// The first value of `key`, as Go's `url.Values.Get`.
pub fn query_value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Decodes a raw query like Go's `url.ParseQuery` as `Request.URL.Query()` uses it: pairs split
/// on `&`, `+` is a space, and pairs with a `;`, a bad `%` escape or nothing at all are dropped.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.contains(';'))
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Some((unescape(key, true)?, unescape(value, true)?))
        })
        .collect()
}

/// Go's `url` unescaping: `%XX` becomes the byte, `+` a space in query components; `None` on a
/// malformed escape. Bytes that are not UTF-8 are replaced.
pub(super) fn unescape(s: &str, plus_is_space: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let digit = |at: usize| bytes.get(at).and_then(|c| char::from(*c).to_digit(16));
                out.push(u8::try_from(digit(i + 1)? * 16 + digit(i + 2)?).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_pairs_decode_like_go_parse_query() {
        #[rustfmt::skip]
        let cases: [(_, _, &[(&str, &str)]); 8] = [
            ("empty", "", &[]),
            ("plain", "a=1&b=2", &[("a", "1"), ("b", "2")]),
            ("no value", "a&b=", &[("a", ""), ("b", "")]),
            ("first equals splits", "f=a=b", &[("f", "a=b")]),
            ("escapes and plus", "k%20x=a+b%2Bc", &[("k x", "a b+c")]),
            ("empty pairs skipped", "&&a=1&", &[("a", "1")]),
            ("semicolon pair dropped", "a=1;b=2&c=3", &[("c", "3")]),
            ("bad escape dropped", "a=%zz&b=%4&c=%41", &[("c", "A")]),
        ];
        for (name, query, want) in cases {
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect();
            assert_eq!(query_pairs(query), want, "{name}");
        }
    }

    #[test]
    fn query_bool_false_only_for_zero_or_false() {
        let cases = [
            ("", true),
            ("true", true),
            ("1", true),
            ("yes", true),
            ("0", false),
            ("false", false),
            ("False", false),
            ("falſe", false),
            ("00", true),
        ];
        for (value, want) in cases {
            assert_eq!(query_bool(value), want, "{value:?}");
        }
    }
}
