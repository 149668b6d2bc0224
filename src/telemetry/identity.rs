//! kube's `APIServerID` (k8s.io/apiserver `NewConfig`), the `service.instance.id` of
//! exported spans: `apiserver-` and the lower-cased, unpadded base32 of the first 16
//! bytes of SHA-256 over the length-prefixed host name and `kube-apiserver`.

/// The id for this host.
pub fn apiserver_id() -> String {
    id_for(&hostname())
}

/// Go's `os.Hostname` on Linux: the kernel's host name.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim_end_matches('\n').to_string())
        .unwrap_or_default()
}

fn id_for(hostname: &str) -> String {
    let mut data = Vec::with_capacity(hostname.len() + 18);
    for part in [hostname.as_bytes(), b"kube-apiserver"] {
        // cryptobyte's uint16 length prefix; a longer host name is cut as Go's would fail.
        let len = u16::try_from(part.len()).unwrap_or(u16::MAX);
        data.extend_from_slice(&len.to_be_bytes());
        data.extend_from_slice(&part[..usize::from(len)]);
    }
    let hash = ring::digest::digest(&ring::digest::SHA256, &data);
    let first = hash.as_ref().get(..16).unwrap_or_default();
    format!("apiserver-{}", base32_lower(first))
}

/// RFC 4648 base32, lower case, no padding.
fn base32_lower(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &b in bytes {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_lower_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "my"),
            ("fo", "mzxq"),
            ("foo", "mzxw6"),
            ("foobar", "mzxw6ytboi"),
        ];
        for (input, want) in cases {
            assert_eq!(base32_lower(input.as_bytes()), want, "{input}");
        }
    }

    #[test]
    fn id_for_host_is_stable_and_shaped() {
        let id = id_for("node-1");
        assert_eq!(id, id_for("node-1"));
        assert_ne!(id, id_for("node-2"));
        assert_eq!(id.len(), "apiserver-".len() + 26);
        assert!(id.starts_with("apiserver-"));
    }
}
