//! A small, fast, non-cryptographic hasher (the Fx algorithm rustc uses) for maps keyed by
//! symbol names: tens of thousands of long strings per diff, no untrusted-collision concern
//! worth SipHash's cost (the keys come from the libraries being compared).

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(tail(rest) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The last 1..=7 bytes as one word, from two overlapping loads instead of a copy of a
/// variable length (a `memcpy` call per hashed name, a tenth of the scope rollup's time).
#[inline]
fn tail(rest: &[u8]) -> u64 {
    let n = rest.len();
    match rest {
        [a, b, c, d, ..] => {
            let lo = u64::from(u32::from_le_bytes([*a, *b, *c, *d]));
            let hi = match rest[n - 4..] {
                [e, f, g, h] => u64::from(u32::from_le_bytes([e, f, g, h])),
                _ => 0,
            };
            // The two loads overlap on equal bytes, so OR-ing them gives the little-endian word.
            lo | (hi << ((n - 4) * 8))
        }
        // 1..=3 bytes: first, middle and last (for n = 3 that is every byte once, in order).
        [a, ..] => {
            let (b, c) = (rest[n / 2], rest[n - 1]);
            u64::from(*a) | (u64::from(b) << 8) | (u64::from(c) << 16)
        }
        [] => 0,
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(bytes: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(bytes);
        h.finish()
    }

    /// Every byte of the tail counts: changing any one byte of a name of any length up to 40
    /// changes its hash.
    #[test]
    fn every_byte_of_the_tail_counts() {
        let base: Vec<u8> = (b'a'..=b'z').cycle().take(40).collect();
        for len in 1..=base.len() {
            let name = &base[..len];
            for at in 0..len {
                let mut other = name.to_vec();
                other[at] ^= 0x20;
                assert_ne!(hash(name), hash(&other), "length {len}, byte {at}");
            }
        }
    }

    /// The tail word is the little-endian value of the last bytes (4..=7 of them).
    #[test]
    fn tail_words_are_little_endian() {
        let bytes = [1u8, 2, 3, 4, 5, 6, 7];
        for n in 4..=7 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(tail(&bytes[..n]), u64::from_le_bytes(w), "{n} bytes");
        }
        assert_eq!(tail(&[9, 8, 7]), 0x07_08_09);
    }
}
