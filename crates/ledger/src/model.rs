//! The ledger's API types: what clients send, what they get back, and the validated commands in between.
//!
//! Requests are deserialized leniently (plain integers and strings) and then validated here, so
//! that a zero amount or a bad currency gets its own stable code instead of a generic parse error.

use domain::{Amount, Currency};
use platform::AppError;
use platform::codes;
use serde_json::Value;
use uuid::Uuid;

/// How many balance rows a hot account's counters are spread over (see the migration).
pub const HOT_ACCOUNT_SHARDS: i16 = 16;
/// The hold timeout when a pending transfer names none.
pub const DEFAULT_HOLD_TIMEOUT_SECONDS: i32 = 300;
/// The longest a hold may last: a week.
pub const MAX_HOLD_TIMEOUT_SECONDS: i32 = 7 * 24 * 3600;
/// The most transfers one batch may carry.
pub const MAX_BATCH: usize = 10_000;
/// The largest metadata object accepted, serialized.
pub const MAX_METADATA_BYTES: usize = 4096;

pub use ledger_api::AccountKind;
pub use ledger_api::daily;
pub use ledger_api::wire::*;

/// Wallets and escrow hold real players' money and must never be overdrawn.
fn default_no_negative(kind: AccountKind) -> bool {
    matches!(kind, AccountKind::PlayerWallet | AccountKind::GameEscrow)
}

/// Accounts that every player's wagers or payouts touch are hot by default.
fn default_hot(kind: AccountKind) -> bool {
    !matches!(kind, AccountKind::PlayerWallet | AccountKind::RetailerSettlement)
}

/// A validated account to create.
#[derive(Debug, Clone)]
pub struct NewAccount {
    pub id: Uuid,
    pub kind: AccountKind,
    pub owner: String,
    pub currency: Currency,
    pub flags: AccountFlags,
    pub metadata: Value,
}

/// A request checked into what the ledger does with it (a trait: the request types are
/// `ledger_api`'s, the rules the ledger's).
pub trait Validate {
    type Command;
    fn validate(self) -> Result<Self::Command, AppError>;
}

/// A transfer request checked into a command once its id is resolved.
pub trait ValidateTransfer {
    fn validate(self, id: Uuid) -> Result<TransferCommand, AppError>;
}

impl Validate for NewAccountRequest {
    type Command = NewAccount;

    fn validate(self) -> Result<NewAccount, AppError> {
        let owner = domain::text::trim(&self.owner).to_owned();
        if owner.is_empty() || self.owner.chars().count() > 200 {
            return Err(AppError::unprocessable(codes::INVALID_OWNER, "owner must be 1 to 200 characters"));
        }
        let flags = AccountFlags {
            no_negative_balance: self.flags.no_negative_balance.unwrap_or(default_no_negative(self.kind)),
            hot: self.flags.hot.unwrap_or(default_hot(self.kind)),
        };
        Ok(NewAccount {
            id: self.id.unwrap_or_else(Uuid::now_v7),
            kind: self.kind,
            owner,
            currency: parse_currency(&self.currency)?,
            flags,
            metadata: validate_metadata(self.metadata)?,
        })
    }
}

impl NewAccount {
    pub fn shards(&self) -> i16 {
        if self.flags.hot { HOT_ACCOUNT_SHARDS } else { 1 }
    }
}

/// What a validated transfer does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransferOp {
    Posted {
        debit: Uuid,
        credit: Uuid,
        amount: Amount,
        currency: Currency,
    },
    Pending {
        debit: Uuid,
        credit: Uuid,
        amount: Amount,
        currency: Currency,
        timeout_seconds: i32,
    },
    PostPending {
        pending_id: Uuid,
        amount: Option<Amount>,
    },
    VoidPending {
        pending_id: Uuid,
    },
    /// Only the hold sweeper issues this, once a hold's timeout has passed.
    ExpirePending {
        pending_id: Uuid,
    },
}

/// A validated transfer with its idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferCommand {
    pub id: Uuid,
    pub op: TransferOp,
    pub metadata: Value,
    /// Applied only if this account holds at least this much just before it (`check_funds`).
    pub funds_check: Option<(Uuid, Amount)>,
}

impl ValidateTransfer for TransferRequest {
    /// Checks the request and turns it into a command; `id` must already be resolved.
    fn validate(self, id: Uuid) -> Result<TransferCommand, AppError> {
        let metadata = validate_metadata(self.metadata)?;
        let funds_check =
            self.check_funds.map(|c| positive_amount(c.at_least).map(|a| (c.account_id, a))).transpose()?;
        let ends_hold = self.post_pending_id.or(self.void_pending_id);
        if let Some(pending_id) = ends_hold {
            if self.post_pending_id.is_some() && self.void_pending_id.is_some() {
                return Err(invalid_transfer("give post_pending_id or void_pending_id, not both"));
            }
            if self.debit_account_id.is_some()
                || self.credit_account_id.is_some()
                || self.currency.is_some()
                || self.pending
                || self.timeout_seconds.is_some()
            {
                return Err(invalid_transfer(
                    "posting or voiding a hold takes only its id (and, to post, an amount): \
                     the accounts and currency are the hold's",
                ));
            }
            let op = if self.void_pending_id.is_some() {
                if self.amount.is_some() {
                    return Err(invalid_transfer("a void releases the whole hold and takes no amount"));
                }
                TransferOp::VoidPending { pending_id }
            } else {
                TransferOp::PostPending { pending_id, amount: self.amount.map(positive_amount).transpose()? }
            };
            return Ok(TransferCommand { id, op, metadata, funds_check });
        }

        let debit = self.debit_account_id.ok_or_else(|| missing("debit_account_id"))?;
        let credit = self.credit_account_id.ok_or_else(|| missing("credit_account_id"))?;
        let amount = positive_amount(self.amount.ok_or_else(|| missing("amount"))?)?;
        let currency = parse_currency(self.currency.as_deref().ok_or_else(|| missing("currency"))?)?;
        if debit == credit {
            return Err(AppError::unprocessable(
                codes::SAME_ACCOUNT,
                "debit and credit accounts must differ",
            ));
        }
        let op = if self.pending {
            let timeout_seconds = self.timeout_seconds.unwrap_or(DEFAULT_HOLD_TIMEOUT_SECONDS);
            if !(1..=MAX_HOLD_TIMEOUT_SECONDS).contains(&timeout_seconds) {
                return Err(AppError::unprocessable(
                    codes::INVALID_TIMEOUT,
                    format!("timeout_seconds must be 1 to {MAX_HOLD_TIMEOUT_SECONDS}"),
                ));
            }
            TransferOp::Pending { debit, credit, amount, currency, timeout_seconds }
        } else {
            if self.timeout_seconds.is_some() {
                return Err(AppError::unprocessable(
                    codes::INVALID_TIMEOUT,
                    "only a pending transfer has a timeout",
                ));
            }
            TransferOp::Posted { debit, credit, amount, currency }
        };
        Ok(TransferCommand { id, op, metadata, funds_check })
    }
}

/// The longest a raise of a limit may be made to wait: 30 days.
pub const MAX_RAISE_DELAY_SECONDS: i64 = 30 * 24 * 3600;

/// A limit change checked: a period exactly where the kind has one, an amount of at least a
/// cent and at most what one account may move, a delay in bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidLimitChange {
    pub kind: MoneyLimitKind,
    pub period: Option<LimitPeriod>,
    pub source: LimitSource,
    pub cents: Option<i64>,
    pub raise_delay_seconds: i64,
}

impl Validate for LimitChange {
    type Command = ValidLimitChange;

    fn validate(self) -> Result<ValidLimitChange, AppError> {
        let invalid = |detail: &str| AppError::unprocessable(codes::INVALID_MONEY_LIMIT, detail.to_owned());
        match (self.kind, self.period) {
            (MoneyLimitKind::SingleStake, Some(_)) => {
                return Err(invalid("a single-stake limit has no period"));
            }
            (MoneyLimitKind::Loss | MoneyLimitKind::Wager, None) => {
                return Err(invalid("a loss or wager limit needs a period: daily, weekly or monthly"));
            }
            _ => {}
        }
        if let Some(cents) = self.cents {
            positive_amount(cents)?;
        }
        if !(0..=MAX_RAISE_DELAY_SECONDS).contains(&self.raise_delay_seconds) {
            return Err(invalid(&format!("raise_delay_seconds must be 0 to {MAX_RAISE_DELAY_SECONDS}")));
        }
        Ok(ValidLimitChange {
            kind: self.kind,
            period: self.period,
            source: self.source,
            cents: self.cents,
            raise_delay_seconds: self.raise_delay_seconds,
        })
    }
}

fn invalid_transfer(detail: &str) -> AppError {
    AppError::unprocessable(codes::INVALID_TRANSFER, detail)
}

fn missing(field: &str) -> AppError {
    AppError::unprocessable(codes::MISSING_FIELD, format!("`{field}` is required"))
}

fn positive_amount(cents: i64) -> Result<Amount, AppError> {
    Amount::new(cents).map_err(|e| match e {
        domain::MoneyError::TooLarge(_) => AppError::unprocessable(codes::AMOUNT_TOO_LARGE, e.to_string()),
        _ => AppError::unprocessable(codes::INVALID_AMOUNT, e.to_string()),
    })
}

fn parse_currency(code: &str) -> Result<Currency, AppError> {
    code.parse()
        .map_err(|e: domain::MoneyError| AppError::unprocessable(codes::INVALID_CURRENCY, e.to_string()))
}

fn validate_metadata(metadata: Option<Value>) -> Result<Value, AppError> {
    let metadata = match metadata {
        None | Some(Value::Null) => return Ok(Value::Object(Default::default())),
        Some(m @ Value::Object(_)) => m,
        Some(_) => {
            return Err(AppError::unprocessable(codes::INVALID_METADATA, "metadata must be a JSON object"));
        }
    };
    if metadata.to_string().len() > MAX_METADATA_BYTES {
        return Err(AppError::unprocessable(
            codes::INVALID_METADATA,
            format!("metadata must serialize to at most {MAX_METADATA_BYTES} bytes"),
        ));
    }
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(amount: i64) -> TransferRequest {
        TransferRequest {
            debit_account_id: Some(Uuid::now_v7()),
            credit_account_id: Some(Uuid::now_v7()),
            amount: Some(amount),
            currency: Some("USD".into()),
            ..Default::default()
        }
    }

    #[test]
    fn zero_and_negative_amounts_get_their_own_code() {
        for cents in [0, -1, i64::MIN] {
            let err = transfer(cents).validate(Uuid::now_v7()).unwrap_err();
            assert_eq!(err.code(), "invalid_amount");
        }
    }

    #[test]
    fn a_hold_end_takes_only_its_id() {
        let mut req = transfer(5);
        req.post_pending_id = Some(Uuid::now_v7());
        assert_eq!(req.validate(Uuid::now_v7()).unwrap_err().code(), "invalid_transfer");
        let void =
            TransferRequest { void_pending_id: Some(Uuid::now_v7()), amount: Some(5), ..Default::default() };
        assert_eq!(void.validate(Uuid::now_v7()).unwrap_err().code(), "invalid_transfer");
    }

    #[test]
    fn pending_defaults_its_timeout_and_bounds_it() {
        let mut req = transfer(5);
        req.pending = true;
        let cmd = req.clone().validate(Uuid::now_v7()).unwrap();
        assert!(matches!(cmd.op, TransferOp::Pending { timeout_seconds: DEFAULT_HOLD_TIMEOUT_SECONDS, .. }));
        req.timeout_seconds = Some(0);
        assert_eq!(req.validate(Uuid::now_v7()).unwrap_err().code(), "invalid_timeout");
    }

    #[test]
    fn wallets_default_to_no_overdraft_and_house_accounts_to_hot() {
        let wallet = NewAccountRequest {
            id: None,
            kind: AccountKind::PlayerWallet,
            owner: "p".into(),
            currency: "USD".into(),
            flags: AccountFlagsRequest::default(),
            metadata: None,
        };
        let house = NewAccountRequest { kind: AccountKind::HouseRevenue, ..wallet.clone() };
        let wallet = wallet.validate().unwrap();
        let house = house.validate().unwrap();
        assert_eq!(wallet.flags, AccountFlags { no_negative_balance: true, hot: false });
        assert_eq!(house.flags, AccountFlags { no_negative_balance: false, hot: true });
        assert_eq!((wallet.shards(), house.shards()), (1, HOT_ACCOUNT_SHARDS));
    }
}
