//! Estimated costs of library calls from k8s.io/apiserver `pkg/cel/library/cost_test.go`
//! (its test estimator bounds every string and bytes value by 12).

/// (expression, estimated min, estimated max).
pub const CASES: &[(&str, u64, u64)] = &[
    // TestStringLibrary.
    ("'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3),
    (
        "'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()",
        7,
        9,
    ),
    (
        "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()",
        7,
        9,
    ),
    ("strings.quote('ABCDEFGHIJ abcdefghij')", 3, 3),
    (
        "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
        7,
        11,
    ),
    ("'abc 123 def 123'.replace('123', '456')", 3, 3),
    ("'abc 123 def 123'.replace('', 'x')", 3, 3),
    ("'abc 123 def 123'.replace('123', '')", 3, 3),
    ("'abc 123 def 123'.replace('123', '456', 1)", 3, 3),
    ("'abc 123 def 123'.split(' ')", 3, 3),
    ("'abc 123 def 123'.split(' ', 1)", 3, 3),
    ("'abc 123 def 123'.substring(5)", 2, 2),
    ("'abc 123 def 123'.substring(5, 8)", 2, 2),
    ("'  abc 123 def 123  '.trim()", 2, 2),
    (
        "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')",
        11,
        23,
    ),
    (
        "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()",
        10,
        22,
    ),
    ("'abc 123 def 123'.find('123')", 2, 2),
    ("'abc 123 def 123'.findAll('123')", 2, 2),
    ("'abc 123 def 123'.findAll('123', 1)", 2, 2),
    // TestListsCost, TestIndexOfCost.
    ("[1, 2, 3, 4, 5].sum()", 15, 15),
    ("[1, 2, 3, 4, 5].isSorted()", 15, 15),
    (
        "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].max()",
        15,
        25,
    ),
    (
        "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')].min()",
        25,
        35,
    ),
    (
        "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')].sum()",
        20,
        20,
    ),
    ("[1, 2, 3, 4, 5].indexOf(3)", 15, 15),
    (
        "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].lastIndexOf('x')",
        15,
        25,
    ),
    (
        "'01234567890123456789012345678901234567890123456789'.indexOf('123')",
        5,
        5,
    ),
    // TestURLsCost.
    ("url('https:://kubernetes.io/').getHost()", 4, 4),
    (
        "url('https:://kubernetes.io/') == url('https:://kubernetes.io/')",
        7,
        9,
    ),
    ("url('https:://kubernetes.io/') == url('http://x.b')", 5, 5),
    // TestIPCost, TestIPIsCanonicalCost, TestCIDRCost.
    ("ip('192.168.0.1')", 2, 2),
    (
        "ip('2001:db8:3333:4444:5555:6666:7777:8888').family()",
        5,
        5,
    ),
    ("ip('192.168.0.1') == ip('192.168.0.1')", 5, 5),
    (
        "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')",
        8,
        8,
    ),
    ("cidr('192.168.0.0/16').ip()", 3, 3),
    (
        "cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))",
        7,
        11,
    ),
    (
        "cidr('192.168.0.0/16').containsCIDR('192.168.0.0/16')",
        7,
        11,
    ),
    ("cidr('192.168.0.0/16').containsIP(ip('192.0.0.1'))", 4, 7),
    (
        "cidr('2001:db8::/32').containsIP('2001:db8:3333:4444:5555:6666:7777:8888')",
        7,
        10,
    ),
    ("cidr('2001:db8::/32') == cidr('2001:db8::/32')", 5, 5),
    // TestQuantityCost.
    ("quantity(\"12Mi\")", 1, 1),
    (
        "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")",
        3,
        6,
    ),
    ("quantity(\"200M\").compareTo(quantity(\"0.2G\")) > 0", 4, 4),
    (
        "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger() > 0",
        7,
        7,
    ),
    // TestNameFormatCost.
    (
        "format.named(\"dns1123Subdomain\").value().validate(\"my-name\")",
        34,
        34,
    ),
    (
        "format.named(\"dns1123Label\").value() == format.named(\"dns1123Label\").value()",
        5,
        11,
    ),
    // TestSetsCost (kube's CRD environment wants homogeneous literals: mixed numeric
    // elements made uniform, which leaves sizes and costs as they are).
    ("sets.contains([], [])", 21, 21),
    ("sets.contains([1, 2, 3, 4], [2, 3])", 29, 29),
    ("sets.contains([[1], [2, 3]], [[2, 3]])", 53, 53),
    ("!sets.contains([1], [2, 1])", 24, 24),
    ("sets.equivalent([1, 2, 3], [3, 2, 1])", 39, 39),
    ("sets.equivalent([[1], [2, 3]], [[1], [2, 3]])", 69, 69),
    ("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3]])", 65, 65),
    ("!sets.intersects([], [])", 22, 22),
    // TestSemverCost.
    ("semver(\"1234.56789012345.67890123456789\")", 4, 4),
    ("semver(\"1.2.3\").major()", 2, 2),
    ("semver(\"1.0.0\").isLessThan(semver(\"1.1.0\"))", 3, 3),
    // TestTwoVariableComprehensionCost.
    ("{'a': 1, 'b': 2}.all(k, v, v > 0)", 37, 41),
    ("{'a': 1, 'b': 2}.exists(k, v, v > 0)", 39, 43),
    ("{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 38, 40),
    ("{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71, 71),
    ("{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 67, 75),
    (
        "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})",
        131,
        131,
    ),
    (
        "{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})",
        67,
        135,
    ),
    ("[1, 2].all(i, v, v > 0)", 17, 21),
    ("[1, 2].exists(i, v, v > 0)", 19, 23),
    ("[1, 2].existsOne(i, v, v > 0)", 18, 20),
    ("[1, 2].transformList(i, v, v + 1)", 49, 49),
    ("[1, 2].transformList(i, v, v < 5, v + 1)", 27, 53),
];
