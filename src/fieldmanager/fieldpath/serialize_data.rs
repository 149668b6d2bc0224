//! Upstream's serialize_test.go inputs, as data.

/// serialize_test.go TestSerializeV1GoldenData: each reads and writes back byte for byte.
pub(super) const GOLDEN: &[&str] = &[
    r###"{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}"###,
    r###"{"f:aaa":{"k:{\"name\":\"second\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\"port\":443,\"protocol\":\"udp\"}":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"k:{\"name\":\"first\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\"name\":\"second\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\"name\":\"first\"}":{"k:{\"name\":\"first\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\"name\":\"first\"}":{"f:aad":{"f:aaf":{}}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"f:aaa":{"f:aad":{}}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"f:aac":{},"k:{\"name\":\"first\"}":{"i:3":{}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\"name\":\"first\"}":{},"i:2":{}},"v:\"aa\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\"name\":\"first\"}":{"f:aad":{}},"i:2":{}},"v:\"ab\"":{"f:aaf":{"i:4":{}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\"name\":\"second\"}":{"f:aaa":{}},"i:2":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\"aa\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\"aa\"":{"f:aab":{"k:{\"name\":\"second\"}":{}}}}}"###,
    r###"{"f:spec":{".":{},"f:apps":{".":{},"k:{\"name\":\" app-💻\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"name\":\"port 🔑\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\"name\":\" app-🚀\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"name\":\"port-✅ \"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}"###,
];

/// TestDeserializeForValidNonNormalized: (non-normalized, normalized).
pub(super) const NON_NORMALIZED: &[(&str, &str)] = &[
    (
        r###"{
  "f:aad": {},
  "f:aaa": {},
  "f:aab": {},
  "f:aac": {},
  "f:aae": {},
  "f:aaf": {},


  "k:{\"name\":\"first\"}": {},
  "k:{\"name\":\"second\"}": {},
  "k:{\"port\":443,\"protocol\":\"tcp\"}": {},
  "k:{ \"protocol\":\"udp\",\"port\":443}": {},
  "v:1": {},

  "v:2": {},
  "v: 3": {},
  "v:\"aa\"": {},

  "v:\"ab\"": {},
  "v:true": {},
  "i:1": {},
  	"i:2": {},
  "i:3": {}  ,
  "i:4":    {}
}"###,
        r###"{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}"###,
    ),
    (
        r###"{
  "f:aaa": {
    "k:{\"name\":\"second\"}": {
      "v:3": {
        "f:aab": {}
      }
    },
    "v:3": {},
    "v:true": {}
  },
  "f:aab": {
    "f:aaa": {},
    "f:aaf": {
      "k:{\"port\":443,\"protocol\":\"udp\"}": {
        "k:{\"port\":443,\"protocol\":\"tcp\"}": {}
      }
    },
    "k:{\"name\":\"first\"}": {}
  },
  "f:aac": {
    "f:aaa": {
      "v:1": {}
    },
    "f:aac": {},
    "v:3": {
      "k:{\"name\":\"second\"}": {}
    }
  },
  "f:aad": {
    "f:aac": {
      "v:1": {}
    },
    "f:aaf": {
      "k:{\"name\":\"first\"}": {
        "k:{\"name\":\"first\"}": {}
      }
    },
    "i:1": {
      "i:1": {},
      "i:3": {
        "v:true": {}
      }
    }
  },
  "f:aae": {
    "f:aae": {},
    "k:{\"port\":443,\"protocol\":\"tcp\"}": {
      "k:{\"port\":443,\"protocol\":\"udp\"}": {}
    },
    "i:4": {
      "f:aaf": {}
    }
  },
  "f:aaf": {
    "i:1": {
      "f:aac": {}
    },
	"i:3": {},
    "i:2": {}
  },
  "k:{\"name\":\"first\"}": {
    "f:aad": {
      "f:aaf": {}
    }
  },
  "k:{\"port\":443,\"protocol\":\"tcp\"}": {
    "f:aaa": {
      "f:aad": {}
    }
  },
  "k:{\"port\":443,\"protocol\":\"udp\"}": {
    "f:aac": {},
    "k:{\"name\":\"first\"}": {
      "i:3": {}
    },
    "k:{\"port\":443,\"protocol\":\"udp\"}": {
      "i:4": {}
    }
  },
   "v:2": {
    "f:aad": {
      "f:aaf": {}
    },
    "i:1": {}
  },
  "v:1": {
    "f:aac": {
      "i:4": {}
    },
    "f:aaf": {},
    "k:{\"port\":443,\"protocol\":\"tcp\"}": {}
  },
  "v:3": {
    "f:aaa": {},
    "k:{\"name\":\"first\"}": {},
    "i:2": {}
  },
  "v:\"aa\"": {
    "f:aab": {
      "f:aaf": {}
    },
    "f:aae": {},
    "k:{\"name\":\"first\"}": {
      "f:aad": {}
    },
    "i:2": {}
  },
  "v:\"ab\"": {
    "f:aaf": {
      "i:4": {}
    },
    "k:{\"port\":443,\"protocol\":\"tcp\"}": {},
    "k:{\"port\":443,\"protocol\":\"udp\"}": {},
    "v:1": {
      "k:{\"port\":443,\"protocol\":\"udp\"}": {}
    },
    "i:1": {
      "f:aae": {
        "i:4": {}
      }
    }
  },
  
  "v:true": {
    "k:{\"name\":\"second\"}": {
      "f:aaa": {}
    },
    "i:2": {
      "k:{\"port\":443,\"protocol\":\"tcp\"}": {}
    }
  },

  
  "i:1": {
    "i:3": {
      "f:aaf": {}
    }
  },

  "i:3": {
    "f:aab": {
      "v:true": {
        "v:\"aa\"": {}
      }
    },
    "f:aaf": {},
    "i:1": {}
  },

  "i:2": {
    "f:aae": {},
    "k:{\"port\":443,\"protocol\":\"tcp\"}": {
      "v:1": {}
    }
  },

  "i:4": {
    "v:\"aa\"": {
      "f:aab": {
        "k:{\"name\":\"second\"}": {}
      }
    }
  }
}"###,
        r###"{"f:aaa":{"k:{\"name\":\"second\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\"port\":443,\"protocol\":\"udp\"}":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"k:{\"name\":\"first\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\"name\":\"second\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\"name\":\"first\"}":{"k:{\"name\":\"first\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\"name\":\"first\"}":{"f:aad":{"f:aaf":{}}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"f:aaa":{"f:aad":{}}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"f:aac":{},"k:{\"name\":\"first\"}":{"i:3":{}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\"name\":\"first\"}":{},"i:2":{}},"v:\"aa\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\"name\":\"first\"}":{"f:aad":{}},"i:2":{}},"v:\"ab\"":{"f:aaf":{"i:4":{}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\"name\":\"second\"}":{"f:aaa":{}},"i:2":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\"aa\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\"aa\"":{"f:aab":{"k:{\"name\":\"second\"}":{}}}}}"###,
    ),
];

/// TestSetFromJSONTokenTypeErrors: (name, input), each an error.
pub(super) const READ_ERRORS: &[(&str, &str)] = &[
    ("rootArray", r###"[]"###),
    ("rootNumber", r###"42"###),
    ("rootString", r###""hi""###),
    ("empty", r###""###),
    ("whitespaceOnly", r###"   "###),
    ("numberAsKey", r###"{1:{}}"###),
    ("trailingCommaAfterEntry", r###"{"f:a":{},}"###),
    ("closedBeforeColon", r###"{"f:a" }:{}}"###),
    ("closedBeforeValue", r###"{"f:a":}"###),
    ("valueIsNumber", r###"{"f:a":1}"###),
    ("valueIsArray", r###"{"f:a":[]}"###),
    ("valueOpenedAsArrayClosedAsObject", r###"{"f:a":[}"###),
    ("valueOpenedAsObjectClosedAsArray", r###"{"f:a":{]}"###),
    ("doubleCommaBetweenEntries", r###"{"f:a":{},,"f:b":{}}"###),
    ("missingCommaBetweenEntries", r###"{"f:a":{} "f:b":{}}"###),
    ("doubleColonAfterKey", r###"{"f:a"::{}}"###),
    ("colonWithoutKey", r###"{:1}"###),
    ("keyWithoutColon", r###"{"f:a"}"###),
    ("leadingCommaInsideValue", r###"{"f:a":{,}}"###),
    ("bareCloseBrace", r###"}"###),
    ("keyEmptyString", r###"{"":{}}"###),
    ("keyMissingColon", r###"{"x":{}}"###),
    ("keyOnlyColon", r###"{":":{}}"###),
    ("unclosedAfterOpen", r###"{"###),
    ("unclosedAfterValue", r###"{"f:a":{}"###),
    ("unclosedAfterTrailingComma", r###"{"f:a":{},"###),
    ("truncatedOpenQuoteOnly", r###"{""###),
    ("truncatedKeyTypeOnly", r###"{"f"###),
    ("truncatedKeySeparator", r###"{"f:"###),
    ("truncatedKeyNoCloseQuote", r###"{"f:a"###),
    ("truncatedAfterKey", r###"{"f:a""###),
    ("truncatedAfterColon", r###"{"f:a":"###),
    ("truncatedAfterNestedOpen", r###"{"f:a":{"###),
    ("truncatedAfterNestedKey", r###"{"f:a":{"f:b""###),
    ("truncatedAfterNestedColon", r###"{"f:a":{"f:b":"###),
    ("truncatedAfterNestedValue", r###"{"f:a":{"f:b":{}"###),
    ("truncatedAfterNestedComma", r###"{"f:a":{"f:b":{},"###),
    ("truncatedKeyWithEscape", r###"{"f:a\"###),
    ("truncatedKeyInsideUnicodeEscape", r###"{"f:\u00"###),
    ("truncatedAtSecondKey", r###"{"f:a":{}, "f"###),
    ("truncatedAtSecondKeyClose", r###"{"f:a":{}, "f:b"###),
    ("trailingCloseBrace", r###"{"f:a":{}}}"###),
    ("trailingObject", r###"{"f:a":{}}{}"###),
    ("trailingString", r###"{"f:a":{}}"string""###),
    ("trailingNumber", r###"{"f:a":{}}42"###),
    ("trailingWhitespaceThenCloseBrace", r###"{"f:a":{}}  }"###),
    ("trailingWhitespaceThenObject", r###"{"f:a":{}}  {}"###),
    ("trailingWhitespaceThenString", r###"{"f:a":{}}  "x""###),
    ("trailingWhitespaceThenNumber", "{\"f:a\":{}}\n42"),
];

/// TestSetFromJSON: (name, input), each accepted.
pub(super) const READ_OK: &[(&str, &str)] = &[
    ("trailingSpace", r###"{"f:a":{}} "###),
    ("trailingTab", "{\"f:a\":{}}\t"),
    ("trailingNewline", "{\"f:a\":{}}\n"),
    ("trailingCarriageReturn", "{\"f:a\":{}}\r"),
    ("trailingMultipleSpaces", r###"{"f:a":{}}     "###),
    ("trailingMixedWhitespace", "{\"f:a\":{}} \t\n\r "),
    ("leadingSpace", r###" {"f:a":{}}"###),
    ("leadingTab", "\t{\"f:a\":{}}"),
    ("leadingNewline", "\n{\"f:a\":{}}"),
    ("leadingCarriageReturn", "\r{\"f:a\":{}}"),
    ("leadingMultipleSpaces", r###"     {"f:a":{}}"###),
    ("leadingMixedWhitespace", " \t\n\r {\"f:a\":{}}"),
    ("surroundingMixedWhitespace", " \t\n\r {\"f:a\":{}} \t\n\r "),
    ("whitespaceAroundEmptySet", "  {}  "),
    ("whitespaceBetweenTokens", "{ \"f:a\" : {} }"),
    ("whitespaceBeforeKey", "{\n\t\"f:a\":{}}"),
    ("whitespaceAfterColon", r###"{"f:a":     {}}"###),
    ("bareNull", r###"null"###),
    ("nullWithSurroundingWhitespace", r###" null "###),
];
