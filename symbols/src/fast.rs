//! The maps and sets keyed by symbol names hash with foldhash, the workspace's one fast hasher
//! (as in `dirty_surface`): tens of thousands of long strings per diff, and no untrusted-collision
//! concern worth SipHash's cost (the keys come from the libraries being compared). No output
//! depends on a map's iteration order: the maps are only looked up.

use std::hash::{BuildHasher, Hasher};

pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;
pub(crate) type FastSet<K> = foldhash::HashSet<K>;

/// The hash of a text, the same for the whole run (a fixed seed): keys that carry their hash
/// (`diff::Hashed`) compare it across maps and threads.
pub(crate) fn hash_text(text: &str) -> u64 {
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    h.write(text.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte counts: changing any one byte of a name of any length up to 40 changes its
    /// hash.
    #[test]
    fn every_byte_of_the_tail_counts() {
        let base: String = ('a'..='z').cycle().take(40).collect();
        for len in 1..=base.len() {
            let name = &base[..len];
            for at in 0..len {
                let mut other = name.as_bytes().to_vec();
                other[at] ^= 0x20;
                let other = String::from_utf8(other).unwrap_or_default();
                assert_ne!(
                    hash_text(name),
                    hash_text(&other),
                    "length {len}, byte {at}"
                );
            }
        }
    }
}
