//! The IP, CIDR, URL, format, regex and strings-extension libraries end to end (parse,
//! check, plan, evaluate in the stored-expressions environment), against what
//! kube-apiserver 1.36's cel-go answers for the same expressions.

use crate::cel::check::check;
use crate::cel::env;
use crate::cel::eval::{CostTracker, Plan};
use crate::cel::lib::argv::testing::outcome;
use crate::cel::parse::parse;

fn eval(expr: &str) -> String {
    let env = env::stored();
    let checked = match parse(expr).and_then(|ast| check(ast, &env, &[])) {
        Ok(c) => c,
        Err(e) => return format!("compile: {}", e.lines().next().unwrap_or_default()),
    };
    let plan = match Plan::new(&checked, &env, &[]) {
        Ok(plan) => plan,
        Err(e) => return format!("program: {e}"),
    };
    outcome(plan.evaluate(&[], &mut CostTracker::default()))
}

#[test]
fn kube_part2_libraries_evaluate_like_kube() {
    let cases = [
        (r#"ip("192.168.0.1").family()"#, r#"4"#),
        (r#"ip("2001:db8::68").family()"#, r#"6"#),
        (
            r#"ip("192.168.0.1.0")"#,
            r#"error: IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long"#,
        ),
        (r#"isIP("::ffff:1.2.3.4")"#, r#"false"#),
        (r#"ip.isCanonical("2001:DB8::68")"#, r#"false"#),
        (r#"ip("127.0.0.1").isLoopback()"#, r#"true"#),
        (r#"ip("fe80::1").isLinkLocalUnicast()"#, r#"true"#),
        (r#"ip("ff02::1").isLinkLocalMulticast()"#, r#"true"#),
        (r#"ip("255.255.255.255").isGlobalUnicast()"#, r#"false"#),
        (r#"ip("::").isUnspecified()"#, r#"true"#),
        (
            r#"string(ip("2001:db8:0:0:1:0:0:1"))"#,
            r#"2001:db8::1:0:0:1"#,
        ),
        (r#"ip("::1") == ip("0::1")"#, r#"true"#),
        (
            r#"cidr("192.168.0.0/24").containsIP("192.168.0.1")"#,
            r#"true"#,
        ),
        (
            r#"cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))"#,
            r#"false"#,
        ),
        (
            r#"cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")"#,
            r#"false"#,
        ),
        (
            r#"cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))"#,
            r#"true"#,
        ),
        (
            r#"cidr("10.0.0.0/8").containsIP("foo")"#,
            r#"error: no such overload"#,
        ),
        (
            r#"string(cidr("192.168.0.1/24").masked())"#,
            r#"192.168.0.0/24"#,
        ),
        (r#"string(cidr("192.168.0.1/24").ip())"#, r#"192.168.0.1"#),
        (r#"cidr("2001:db8::/32").prefixLength()"#, r#"32"#),
        (r#"cidr("10.0.0.1/8") == cidr("10.0.0.0/8")"#, r#"false"#),
        (
            r#"cidr("192.168.0.0/")"#,
            r#"error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: """#,
        ),
        (r#"isCIDR("::ffff:1.2.3.4/120")"#, r#"false"#),
        (
            r#"url("https://user:pass@example.com:8080/a%20b/c?x=1&y=2&x=3#frag").getHost()"#,
            r#"example.com:8080"#,
        ),
        (r#"url("https://[::1]:80/").getHostname()"#, r#"::1"#),
        (r#"url("https://example.com:80/").getPort()"#, r#"80"#),
        (
            r#"url("https://example.com/a%2Fb?k=v").getEscapedPath()"#,
            r#"/a%2Fb"#,
        ),
        (
            r#"url("https://example.com/?x=1&y=2&x=3").getQuery()["x"]"#,
            r#"[1, 3]"#,
        ),
        (r#"url("HTTP://x.b/").getScheme()"#, r#"http"#),
        (
            r#"url("relative")"#,
            r#"error: URL parse error during conversion from string: parse "relative": invalid URI for request"#,
        ),
        (r#"isURL("/absolute-path")"#, r#"true"#),
        (
            r#"url("http://x.b/a b") == url("http://x.b/a%20b")"#,
            r#"true"#,
        ),
        (
            r#"format.dns1123Label().validate("my-label-name")"#,
            r#"none"#,
        ),
        (
            r#"format.dns1123Label().validate("contains a space").value()"#,
            r#"[a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]"#,
        ),
        (
            r#"format.named("labelValue").value().validate("my-cool-label-Value!!")"#,
            r#"some([a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')])"#,
        ),
        (r#"format.named("unknown").hasValue()"#, r#"false"#),
        (r#"format.named("uri").value() == format.uri()"#, r#"true"#),
        (
            r#"format.dns1123Label() == format.dns1123Subdomain()"#,
            r#"false"#,
        ),
        (
            r#"format.byte().validate("aGVsbG8")"#,
            r#"some([invalid base64])"#,
        ),
        (
            r#"format.dns1123LabelPrefix().validate("ab-").hasValue()"#,
            r#"false"#,
        ),
        (r#"'abc 123 def 123'.find('123')"#, r#"123"#),
        (r#"'abc 123 def 123'.findAll('123')"#, r#"[123, 123]"#),
        (r#"'abc 123 def 123'.findAll('123', 1)"#, r#"[123]"#),
        (
            r#"'abc'.find(['['][0])"#,
            r#"error: Illegal regex: error parsing regexp: missing closing ]: `[`"#,
        ),
        (r#"'baaab'.findAll('a*').size()"#, r#"3"#),
        (r#"'tacocat'.charAt(3)"#, r#"o"#),
        (
            r#"'tacocat'.charAt(30)"#,
            r#"error: index out of range: 30"#,
        ),
        (r#"'ta©o©αT'.indexOf('©', 3)"#, r#"4"#),
        (
            r#"'tacocat'.indexOf('', -1)"#,
            r#"error: index out of range: -1"#,
        ),
        (r#"'bananananana'.lastIndexOf('nana', 7)"#, r#"6"#),
        (r#"'TacoCÆt Xii'.lowerAscii()"#, r#"tacocÆt xii"#),
        (r#"'tacoCαt'.upperAscii()"#, r#"TACOCαT"#),
        (
            r#"'{0} days {0} hours'.replace('{0}', '2', 1)"#,
            r#"2 days {0} hours"#,
        ),
        (
            r#"'hello world events!'.split(' ', 2)"#,
            r#"[hello, world events!]"#,
        ),
        (r#"'ta©o©αT'.substring(2, 6)"#, r#"©o©α"#),
        (
            r#"'tacocat'.substring(2, 1)"#,
            r#"error: invalid substring range. start: 2, end: 1"#,
        ),
        (r#"'  text  '.trim()"#, r#"text"#),
        (r#"['x', 'y'].join('-')"#, r#"x-y"#),
        (r#"strings.quote('a"b\n')"#, r#""a\"b\n""#),
        (
            r#"'%s is %d years, %.2f%%'.format(['Bob', 42, 99.5])"#,
            r#"Bob is 42 years, 99.50%"#,
        ),
        (r#"'%e'.format([1234567.0])"#, r#"1.234567×10⁰⁶"#),
        (
            r#"'%s'.format([{'b': 1, 'a': [2]}])"#,
            r#"{"a":[2], "b":1}"#,
        ),
        (r#"'%s'.format([[1, 'a', 2.5]])"#, r#"[1, "a", 2.500000]"#),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(expr, want)| {
            let got = eval(expr);
            (got != *want).then(|| format!("{expr}: got {got}, want {want}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
