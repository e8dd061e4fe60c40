//! Exact counting every game's math shares: binomial coefficients and fractions in lowest terms,
//! in `u128` so that no count of draws or deals is ever rounded.

use serde::Serialize;

/// C(n, k), exactly.
pub fn choose(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n.saturating_sub(k));
    // Each step's product is divisible by i: it is C(n, i) · i.
    (1..=u128::from(k)).fold(1u128, |acc, i| {
        acc.saturating_mul(u128::from(n).saturating_sub(i).saturating_add(1)).checked_div(i).unwrap_or(0)
    })
}

/// A non-negative fraction in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Fraction {
    pub numerator: u128,
    pub denominator: u128,
}

impl Fraction {
    pub fn new(numerator: u128, denominator: u128) -> Fraction {
        let g = gcd(numerator, denominator).max(1);
        Fraction {
            numerator: numerator.checked_div(g).unwrap_or(0),
            denominator: denominator.checked_div(g).unwrap_or(1),
        }
    }

    #[allow(clippy::cast_precision_loss)] // for display only; the fraction itself is exact
    pub fn to_f64(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl std::fmt::Display for Fraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a.checked_rem(b).unwrap_or(0));
    }
    a
}
