//! FNV-1a, 64 bits: a short digest of bytes that is the same on every run, machine
//! and version (std's `DefaultHasher` promises none of that). It names generated
//! streams in snapshots, checks the bytes a benchmark read, and tells apart what two
//! streams print (print mode's witness of a rendered stream). Not for anything an adversary chooses.
//!
//! ```
//! use harness::digest::{fnv1a, fnv1a_from, FNV1A_OFFSET};
//!
//! assert_eq!(fnv1a(b""), FNV1A_OFFSET);
//! assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
//! // Digesting in pieces gives the digest of the whole.
//! assert_eq!(fnv1a_from(fnv1a(b"ab"), b"c"), fnv1a(b"abc"));
//! ```

use std::hash::Hasher;

/// The offset basis: the digest of no bytes.
pub const FNV1A_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV prime for 64 bits.
const FNV1A_PRIME: u64 = 0x0100_0000_01b3;

/// The digest of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV1A_OFFSET, bytes)
}

/// The digest of `bytes` continued from `hash`, the digest of what came before them
/// ([`FNV1A_OFFSET`] for nothing).
pub fn fnv1a_from(hash: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(hash, |h, b| (h ^ u64::from(*b)).wrapping_mul(FNV1A_PRIME))
}

/// FNV-1a as a [`Hasher`], to digest anything that is [`Hash`](std::hash::Hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(FNV1A_OFFSET)
    }
}

impl Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a_from(self.0, bytes);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
