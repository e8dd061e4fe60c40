//! Unusual validation patterns at a retailer, as numbers an operator can act on: how many of its
//! validated winners fall in a group of prizes (the high tier, or the band just under the
//! retailer's pay limit) against how many the games' prize structures lead one to expect, and the
//! probability of seeing that many or more by chance.
//!
//! Each winner of game *g* falls in the group with probability *p_g*: the share of the game's
//! printed winners whose prize is in the group (from its definition). The count is then a sum of
//! binomials; its upper tail is computed exactly by convolution for up to [`EXACT_UP_TO`]
//! winners, and with the normal approximation (continuity-corrected) beyond.

use super::GameDefinition;

/// Winners up to which the tail is computed exactly.
pub const EXACT_UP_TO: u64 = 5_000;

/// The share of `game`'s printed winners whose prize value is in `[from_cents, to_cents]`.
pub fn share_of_winners(game: &GameDefinition, from_cents: i64, to_cents: i64) -> f64 {
    let (mut inside, mut all) = (0u64, 0u64);
    for row in &game.prizes {
        all = all.saturating_add(row.count);
        if (from_cents..=to_cents).contains(&row.value_cents) {
            inside = inside.saturating_add(row.count);
        }
    }
    if all == 0 { 0.0 } else { inside as f64 / all as f64 }
}

/// The expected count of `groups` (winners `n` each in the group with probability `p`).
pub fn expected(groups: &[(u64, f64)]) -> f64 {
    groups.iter().map(|&(n, p)| n as f64 * p).sum()
}

/// P(X ≥ `observed`) for X the sum of Binomial(n, p) over `groups`.
pub fn upper_tail(groups: &[(u64, f64)], observed: u64) -> f64 {
    if observed == 0 {
        return 1.0;
    }
    let total: u64 = groups.iter().map(|&(n, _)| n).sum();
    if observed > total {
        return 0.0;
    }
    if total <= EXACT_UP_TO {
        // The distribution of the count, one winner at a time.
        let mut dist = vec![1.0f64];
        for &(n, p) in groups {
            for _ in 0..n {
                let mut next = vec![0.0f64; dist.len().saturating_add(1)];
                for (k, &q) in dist.iter().enumerate() {
                    if let Some(stay) = next.get_mut(k) {
                        *stay += q * (1.0 - p);
                    }
                    if let Some(up) = next.get_mut(k.saturating_add(1)) {
                        *up += q * p;
                    }
                }
                dist = next;
            }
        }
        let from = usize::try_from(observed).unwrap_or(usize::MAX);
        return dist.iter().skip(from).sum::<f64>().clamp(0.0, 1.0);
    }
    let mean = expected(groups);
    let variance: f64 = groups.iter().map(|&(n, p)| n as f64 * p * (1.0 - p)).sum();
    if variance <= 0.0 {
        return if observed as f64 <= mean { 1.0 } else { 0.0 };
    }
    let z = (observed as f64 - 0.5 - mean) / variance.sqrt();
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' erfcc, relative error below 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_tail_is_the_binomial_one() {
        // Binomial(10, 0.5): P(X >= 8) = (45 + 10 + 1) / 1024.
        let tail = upper_tail(&[(10, 0.5)], 8);
        assert!((tail - 56.0 / 1024.0).abs() < 1e-12, "{tail}");
        // Two groups: Binomial(1, 0.1) + Binomial(1, 0.2): P(X >= 2) = 0.02.
        assert!((upper_tail(&[(1, 0.1), (1, 0.2)], 2) - 0.02).abs() < 1e-12);
        assert_eq!(upper_tail(&[(3, 0.2)], 0), 1.0);
        assert_eq!(upper_tail(&[(3, 0.2)], 4), 0.0);
    }

    #[test]
    fn the_normal_tail_meets_the_exact_one_where_they_overlap() {
        // At the boundary both ways agree to within the approximation's error.
        let groups = [(5_000u64, 0.02f64)];
        let exact = upper_tail(&groups, 120);
        let normal = {
            let (mean, sd) = (100.0f64, (5_000.0f64 * 0.02 * 0.98).sqrt());
            0.5 * erfc((119.5 - mean) / sd / std::f64::consts::SQRT_2)
        };
        assert!((exact - normal).abs() < 0.01, "{exact} {normal}");
        assert!(upper_tail(&[(50_000, 0.02)], 1_300) < 1e-9);
    }
}
