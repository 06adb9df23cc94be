//! A map kept as a sorted vector.
//!
//! The core's maps are small (a page's tools, grants, cached plans) and bytes are a feature:
//! each `BTreeMap<K, V>` instantiation links its own node-balancing code (per key/value pair of
//! types; bench/RESULTS.md), while this map is a binary search over a `Vec`, far less code per
//! instantiation. Lookups are O(log n) like a B-tree; inserts and removals move the
//! tail of the vector, which for the hundreds of entries a page holds costs less than the
//! B-tree's allocations.

use alloc::vec::Vec;

/// A map from `K` to `V`, ordered by key.
#[derive(Debug, Clone, PartialEq)]
pub struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { entries: Vec::new() }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        VecMap::default()
    }

    /// Where `key` is (`Ok`), or where it would go (`Err`).
    pub fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: core::borrow::Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: core::borrow::Borrow<Q>,
    {
        self.find(key).ok().and_then(|at| self.entries.get(at)).map(|(_, v)| v)
    }

    /// The key and the value at `at` (a position [`VecMap::find`] answered), the value to change.
    pub fn get_at_mut(&mut self, at: usize) -> Option<(&K, &mut V)> {
        self.entries.get_mut(at).map(|(k, v)| (&*k, v))
    }

    /// Puts `key` and `value` at `at`, where [`VecMap::find`] said `key` would go (past the
    /// end: at the end); answers where they went.
    pub fn insert_at(&mut self, at: usize, key: K, value: V) -> usize {
        let at = at.min(self.entries.len());
        self.entries.insert(at, (key, value));
        at
    }

    /// Sets `key` to `value`; answers the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => self.entries.get_mut(at).map(|(_, v)| core::mem::replace(v, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// The value of `key`, made by `make` when there is none. Always `Some` (the index is the
    /// one found or just inserted at); an `Option` only because the core never indexes.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> Option<&mut V> {
        let at = match self.find(&key) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (key, make()));
                at
            }
        };
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Removes `key`; answers its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: core::borrow::Borrow<Q>,
    {
        self.find(key).ok().map(|at| self.entries.remove(at).1)
    }

    /// Keeps the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        self.entries.retain(|(k, v)| keep(k, v));
    }

    /// The values, in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The entries, in key order.
    pub fn entries(&self) -> &[(K, V)] {
        &self.entries
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::VecMap;

    #[test]
    fn behaves_as_an_ordered_map() {
        let mut map = VecMap::new();
        assert_eq!(map.insert(3, "c"), None);
        assert_eq!(map.insert(1, "a"), None);
        assert_eq!(map.insert(2, "b"), None);
        assert_eq!(map.insert(2, "B"), Some("b"));
        assert_eq!(map.values().copied().collect::<Vec<_>>(), ["a", "B", "c"]);
        assert_eq!(map.get(&2), Some(&"B"));
        assert_eq!(map.remove(&1), Some("a"));
        assert_eq!(map.get(&1), None);
        if let Some(v) = map.get_or_insert_with(5, || "e") {
            *v = "E";
        }
        assert_eq!(map.get_or_insert_with(5, || "x").map(|v| *v), Some("E"));
        assert_eq!(map.find(&4), Err(2));
        assert_eq!(map.insert_at(2, 4, "d"), 2);
        assert_eq!(map.insert_at(99, 9, "i"), 4);
        if let Some((key, value)) = map.get_at_mut(2) {
            assert_eq!(*key, 4);
            *value = "D";
        }
        assert_eq!(map.values().copied().collect::<Vec<_>>(), ["B", "c", "D", "E", "i"]);
        map.retain(|k, _| *k == 2 || *k == 5);
        assert_eq!(map.len(), 2);
        map.clear();
        assert!(map.is_empty());
    }
}
