//! A fast, non-cryptographic hasher for the crate's internal maps keyed by identifiers (rustc's
//! FxHash: one multiply per word). The keys are names from the analysed source, never
//! attacker-chosen in a way that matters here, and no output depends on a map's iteration order
//! (SipHash's random seed already made that order vary from run to run).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
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
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
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

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub(crate) type FxHashSet<K> = HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that differ in any byte, or only in length, land apart.
    #[test]
    fn distinct_keys_hash_apart() {
        use std::hash::BuildHasher;
        let b = FxBuild::default();
        let keys = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "m_x",
            "m_y",
            "abcdefgh",
            "abcdefgi",
            "abcdefgh1",
        ];
        let hs: FxHashSet<u64> = keys.iter().map(|k| b.hash_one(k)).collect();
        assert_eq!(hs.len(), keys.len());
        let mut m: FxHashMap<&str, usize> = FxHashMap::default();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k, i);
        }
        assert!(keys.iter().enumerate().all(|(i, k)| m[k] == i));
    }
}
