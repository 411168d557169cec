//! What every benchmark needs: medians and percentiles of measured samples.
//! Included by each benchmark with `#[path = "support.rs"] mod support;`.

#![allow(dead_code)]

/// The median of the samples (the mean of the middle two for an even count); NaN
/// for none.
pub fn median(values: impl AsRef<[f64]>) -> f64 {
    let mut sorted = values.as_ref().to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The `p`-th percentile (0-100) of samples sorted in increasing order, by nearest
/// rank; NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
