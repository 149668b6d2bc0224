//! Character classes as Go parses them: `[...]` with ranges, POSIX `[:name:]` classes, Perl
//! `\d`-style classes and Unicode `\p{Name}` classes (Go's category and script names).

use super::escape::parse_escape;
use super::{GoError, INVALID_CHAR_RANGE, MISSING_BRACKET};

/// Go's general categories (`unicode.Categories`).
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's script names (`unicode.Scripts`, Unicode 15).
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// POSIX classes allowed inside brackets (each also as `[:^name:]`).
const POSIX: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// `\d`, `\D`, `\s`, `\S`, `\w` or `\W` at the start of `s`: its length.
pub(super) fn perl_class(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (b.len() >= 2 && b[0] == b'\\' && matches!(b[1], b'd' | b'D' | b's' | b'S' | b'w' | b'W'))
        .then_some(2)
}

/// `\pX`, `\p{Name}`, `\PX` or `\P{^Name}` at the start of `s`: its length, `None` when `s`
/// does not start with one.
pub(super) fn parse_unicode_class(s: &str) -> Result<Option<usize>, GoError> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'\\' || (b[1] != b'p' && b[1] != b'P') {
        return Ok(None);
    }
    let (seq, name) = match s[2..].chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(GoError::new(INVALID_CHAR_RANGE, s));
            };
            (&s[..=end], &s[3..end])
        }
        Some(c) => (&s[..2 + c.len_utf8()], &s[2..2 + c.len_utf8()]),
        None => (&s[..2], ""),
    };
    let name = name.strip_prefix('^').unwrap_or(name);
    if name == "Any" || CATEGORIES.contains(&name) || SCRIPTS.contains(&name) {
        Ok(Some(seq.len()))
    } else {
        Err(GoError::new(INVALID_CHAR_RANGE, seq))
    }
}

/// `[:name:]` at the start of `s`: its length; `None` when there is no closing `:]`.
fn parse_named_class(s: &str) -> Result<Option<usize>, GoError> {
    let Some(i) = s[2..].find(":]") else {
        return Ok(None);
    };
    let whole = &s[..i + 4];
    let name = &s[2..i + 2];
    let name = name.strip_prefix('^').unwrap_or(name);
    if POSIX.contains(&name) {
        Ok(Some(whole.len()))
    } else {
        Err(GoError::new(INVALID_CHAR_RANGE, whole))
    }
}

/// A `[...]` class at the start of `s` (which starts with `[`): its length.
pub(super) fn parse_class(s: &str) -> Result<usize, GoError> {
    let mut pos = 1;
    if s[pos..].starts_with('^') {
        pos += 1;
    }
    let mut first = true;
    loop {
        let t = &s[pos..];
        if t.starts_with(']') && !first {
            return Ok(pos + 1);
        }
        first = false;
        if t.len() > 2
            && t.starts_with("[:")
            && let Some(len) = parse_named_class(t)?
        {
            pos += len;
            continue;
        }
        if let Some(len) = parse_unicode_class(t)? {
            pos += len;
            continue;
        }
        if let Some(len) = perl_class(t) {
            pos += len;
            continue;
        }
        pos += class_range(s, pos)?;
    }
}

/// One character or `lo-hi` range at `pos`: its length.
fn class_range(s: &str, pos: usize) -> Result<usize, GoError> {
    let t = &s[pos..];
    let (lo, lo_len) = class_char(t, s)?;
    let after = &t[lo_len..];
    let ab = after.as_bytes();
    if ab.len() >= 2 && ab[0] == b'-' && ab[1] != b']' {
        let (hi, hi_len) = class_char(&after[1..], s)?;
        let len = lo_len + 1 + hi_len;
        if hi < lo {
            return Err(GoError::new(INVALID_CHAR_RANGE, &t[..len]));
        }
        return Ok(len);
    }
    Ok(lo_len)
}

/// One class character (possibly escaped): the character and its length.
fn class_char(t: &str, whole_class: &str) -> Result<(u32, usize), GoError> {
    if t.starts_with('\\') {
        return parse_escape(t);
    }
    match t.chars().next() {
        Some(c) => Ok((c as u32, c.len_utf8())),
        None => Err(GoError::new(MISSING_BRACKET, whole_class)),
    }
}
