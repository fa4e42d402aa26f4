//! The crate's internal maps and sets keyed by names from the analysed source hash with
//! foldhash instead of SipHash (a few instructions per word; the keys are identifiers, and no
//! output depends on a map's iteration order: SipHash's random seed already made that order
//! vary from run to run).

pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;
pub(crate) type FastSet<K> = foldhash::HashSet<K>;
