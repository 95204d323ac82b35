//! `simd::prefetch` and `simd::huge_page_vec` are hints: they must change nothing a program
//! can observe, on small and large arrays alike.

use raypick_primitives::simd::{huge_page_vec, prefetch};

#[test]
fn huge_page_vec_is_an_ordinary_vector() {
    // Below, at and above the 2 MiB threshold, and zero-sized types.
    for n in [0usize, 1, 1000, (2 << 20) / 4, (2 << 20) / 4 + 1, 3 << 20] {
        let mut v: Vec<u32> = huge_page_vec(n);
        assert!(v.is_empty());
        assert!(v.capacity() >= n, "{n}");
        let before = v.as_ptr();
        v.extend((0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)));
        // Filled within capacity: no reallocation.
        assert!(n == 0 || v.as_ptr() == before, "{n}");
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i as u32).wrapping_mul(2_654_435_761)));
        prefetch(&v);
        prefetch(&v[n / 2..]);
    }
    let units: Vec<()> = huge_page_vec(usize::MAX);
    assert!(units.is_empty());
    prefetch::<u8>(&[]);
}
