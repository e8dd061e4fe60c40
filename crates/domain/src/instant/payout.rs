//! What a retailer owes for a settled pack (the tax on prizes is every game's:
//! [`crate::prizes`]).

use crate::prizes::share_of;

/// A pack's settlement: the retailer owes its tickets' price less its commission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSettlement {
    pub sales_cents: i64,
    pub commission_cents: i64,
    pub owed_cents: i64,
}

/// The settlement of a pack of `tickets` tickets at `price_cents`, the retailer keeping
/// `commission_bps` basis points of the sales.
pub fn settle_pack(tickets: u64, price_cents: i64, commission_bps: i64) -> PackSettlement {
    let sales_cents = price_cents.saturating_mul(i64::try_from(tickets).unwrap_or(i64::MAX));
    let commission_cents = share_of(sales_cents, commission_bps);
    PackSettlement { sales_cents, commission_cents, owed_cents: sales_cents.saturating_sub(commission_cents) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_owes_its_price_less_commission() {
        // 60 tickets at $5 with a 5% commission: $300 sold, $15 kept, $285 owed.
        assert_eq!(
            settle_pack(60, 500, 500),
            PackSettlement { sales_cents: 30_000, commission_cents: 1_500, owed_cents: 28_500 }
        );
    }
}
