//! The codes of the regulator's records: the significant-events log, daily reports, prize
//! expiry and annuities (issue 50, ADR 0019). Their statuses and meanings are in [`super::ALL`].

use super::CodeName;

pub const MONTH_NOT_OVER: CodeName = CodeName("month_not_over");
pub const MONTH_SEALED: CodeName = CodeName("month_sealed");
pub const MONTH_NOT_SEALED: CodeName = CodeName("month_not_sealed");
pub const ARCHIVE_MISMATCH: CodeName = CodeName("archive_mismatch");
pub const EVENT_NOT_FOUND: CodeName = CodeName("event_not_found");
pub const INVALID_PERIOD: CodeName = CodeName("invalid_period");
pub const PRIZE_EXPIRED: CodeName = CodeName("prize_expired");
pub const REPORT_NOT_FOUND: CodeName = CodeName("report_not_found");
pub const REPORT_DAY_NOT_BEGUN: CodeName = CodeName("report_day_not_begun");
