//! A short sequence kept on the stack: a call's arguments and a plan's variable slots.
//! A simple rule needs two or three of each, and a heap allocation per call and per
//! evaluation would cost as much as the rule itself.

use std::ops::{Deref, DerefMut};

/// Up to `N` items inline, more on the heap; reads as a slice.
pub(super) enum Small<T, const N: usize> {
    Inline { items: [T; N], len: usize },
    Heap(Vec<T>),
}

impl<T, const N: usize> Small<T, N> {
    /// Room for `capacity` items; `fill` makes the placeholders of the inline room.
    #[inline]
    pub fn with_capacity(capacity: usize, fill: impl Fn() -> T) -> Self {
        if capacity <= N {
            Small::Inline {
                items: std::array::from_fn(|_| fill()),
                len: 0,
            }
        } else {
            Small::Heap(Vec::with_capacity(capacity))
        }
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        match self {
            Small::Inline { items, len } => match items.get_mut(*len) {
                Some(slot) => {
                    *slot = item;
                    *len += 1;
                }
                None => self.spill(item),
            },
            Small::Heap(items) => items.push(item),
        }
    }

    /// Moves the full inline room to the heap, then adds `item`.
    #[cold]
    fn spill(&mut self, item: T) {
        let mut heap = Vec::with_capacity(N * 2);
        if let Small::Inline { items, .. } = std::mem::replace(self, Small::Heap(Vec::new())) {
            heap.extend(items);
        }
        heap.push(item);
        *self = Small::Heap(heap);
    }
}

impl<T, const N: usize> Deref for Small<T, N> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Small::Inline { items, len } => items.get(..*len).unwrap_or_default(),
            Small::Heap(items) => items,
        }
    }
}

impl<T, const N: usize> DerefMut for Small<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Inline { items, len } => items.get_mut(..*len).unwrap_or_default(),
            Small::Heap(items) => items,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Small;

    #[test]
    fn small_push_past_inline_room_keeps_order() {
        for count in [0, 1, 3, 4, 9] {
            let mut small: Small<usize, 3> = Small::with_capacity(count.min(3), || 0);
            for i in 0..count {
                small.push(i);
            }
            let want: Vec<usize> = (0..count).collect();
            assert_eq!(&*small, want.as_slice(), "{count} items");
        }
    }

    #[test]
    fn small_large_capacity_starts_on_heap_and_reads_back() {
        let mut small: Small<u8, 2> = Small::with_capacity(5, || 0);
        for i in 0..5 {
            small.push(i);
        }
        small[1] = 7;
        assert!(matches!(small, Small::Heap(_)));
        assert_eq!(&*small, &[0, 7, 2, 3, 4]);
    }
}
