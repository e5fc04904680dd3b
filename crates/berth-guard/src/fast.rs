//! The guard's hash tables: one command may name tens of thousands of paths, and the standard
//! hasher (SipHash, built to resist crafted keys) was a fifth of the time spent on them. A
//! multiplicative hash eight bytes at a time does the job; a key crafted to collide costs time
//! only, and a guard out of time blocks.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

/// The rotate-xor-multiply hash rustc uses for its own tables.
#[derive(Default, Clone, Copy)]
pub struct Hasher(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl std::hash::Hasher for Hasher {
    /// The product's high bits depend on every bit of the key, its low bits only on the low
    /// bits of the last word; the table picks a bucket by the low bits, so they are rotated in.
    /// Without it, paths that differ only in their last eight bytes' high bytes (`d123/f`,
    /// `d124/f`) share a bucket and 29,000 of them took a second.
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<Hasher>>;
pub type Set<K> = HashSet<K, BuildHasherDefault<Hasher>>;

#[cfg(test)]
mod tests {
    use super::Set;

    #[test]
    fn paths_that_differ_anywhere_are_told_apart() {
        let mut set = Set::default();
        for i in 0..10_000 {
            assert!(set.insert(format!("/repo/linked/d{i}/f")));
        }
        assert!(!set.insert("/repo/linked/d5/f".to_string()));
        assert_eq!(set.len(), 10_000);
    }

    #[test]
    fn keys_that_differ_only_in_high_bytes_spread_over_the_buckets() {
        use std::hash::BuildHasher as _;
        let build = std::hash::BuildHasherDefault::<super::Hasher>::default();
        let mut buckets = std::collections::HashSet::new();
        for i in 0..4096 {
            buckets.insert(build.hash_one(format!("/tmp/gp/l/d{i}/f")) & 0xfff);
        }
        // 4,096 keys over 4,096 buckets: about 63% of them taken by chance, all in one when
        // the low bits ignore the key.
        assert!(buckets.len() > 2_000, "{} buckets", buckets.len());
    }
}
