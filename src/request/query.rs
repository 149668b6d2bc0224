//! Query-string decoding as Go's `net/url` and apimachinery do it: [`Query`] (the
//! `url.ParseQuery` pairs, read with `url.Values.Get`), query booleans, and the `%XX`
//! unescaping that path decoding shares.

/// A query boolean as apimachinery converts it: false only for `0` or (case-folded) `false`;
/// present-but-empty is true.
pub fn query_bool(value: &str) -> bool {
    // Go's strings.EqualFold also folds U+017F (long s) to 's'
    let folded = value.replace('\u{17f}', "s");
    !(value == "0" || folded.eq_ignore_ascii_case("false"))
}

/// A request's query, decoded once (in `server::chain::serve`, next to the request info) and
/// read by both authorization and the handlers, so the two can never disagree.
///
/// A repeated parameter means its **first** value everywhere, as kube reads it: request info
/// uses `url.Values.Get`, and the parameter codec that decodes the options structs takes the
/// first element for every scalar field. Only list-valued options (`dryRun`) see them all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// The raw query without `?`, for messages that quote the URL.
    raw: String,
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Decodes a raw query (without `?`) as `url.ParseQuery`.
    pub fn parse(raw: &str) -> Query {
        Query {
            raw: raw.to_owned(),
            pairs: query_pairs(raw),
        }
    }

    /// The first value of `key`, as Go's `url.Values.Get` (`None` when absent).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key` in order, for the options kube declares as lists (`dryRun`).
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `key` is present, with any value.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The query as received (without `?`).
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Every decoded pair in order; options read [`Query::get`] instead, so that a repeated
    /// parameter cannot mean one thing to authorization and another to a handler.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// [`Query::pairs`] as an iterator.
    pub fn iter(&self) -> std::slice::Iter<'_, (String, String)> {
        self.pairs.iter()
    }
}

/// Decodes a raw query like Go's `url.ParseQuery` as `Request.URL.Query()` uses it: pairs split
/// on `&`, `+` is a space, and pairs with a `;`, a bad `%` escape or nothing at all are dropped.
fn query_pairs(query: &str) -> Vec<(String, String)> {
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
pub fn unescape(s: &str, plus_is_space: bool) -> Option<String> {
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
    fn query_get_repeated_key_first_value() {
        let q =
            Query::parse("fieldSelector=metadata.name%3Dmine&fieldSelector=&dryRun=All&dryRun=x");
        assert_eq!(q.get("fieldSelector"), Some("metadata.name=mine"));
        assert_eq!(q.all("dryRun").collect::<Vec<_>>(), ["All", "x"]);
        assert_eq!(q.get("labelSelector"), None);
        assert!(q.contains("dryRun"));
        assert_eq!(
            q.raw(),
            "fieldSelector=metadata.name%3Dmine&fieldSelector=&dryRun=All&dryRun=x"
        );
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
