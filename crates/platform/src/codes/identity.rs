//! The codes of the player's identity and location checks and of the staff's controls and
//! second factor (issue 49, ADR 0018). Their statuses and meanings are in [`super::ALL`].

use super::CodeName;

pub const DEPOSITS_BLOCKED: CodeName = CodeName("deposits_blocked");
pub const INVALID_REASON: CodeName = CodeName("invalid_reason");
pub const NOT_BLOCKED: CodeName = CodeName("not_blocked");
pub const EMAIL_NOT_VERIFIED: CodeName = CodeName("email_not_verified");
pub const IDENTITY_NOT_VERIFIED: CodeName = CodeName("identity_not_verified");
pub const IDENTITY_IN_PROGRESS: CodeName = CodeName("identity_in_progress");
pub const INVALID_IDENTITY: CodeName = CodeName("invalid_identity");
pub const PO_BOX_ADDRESS: CodeName = CodeName("po_box_address");
pub const NOT_IN_REVIEW: CodeName = CodeName("not_in_review");
pub const IDENTITY_NOT_FOUND: CodeName = CodeName("identity_not_found");
pub const LOCATION_REQUIRED: CodeName = CodeName("location_required");
pub const SECOND_FACTOR_REQUIRED: CodeName = CodeName("second_factor_required");
pub const SECOND_FACTOR_INVALID: CodeName = CodeName("second_factor_invalid");
pub const SECOND_FACTOR_LOCKED: CodeName = CodeName("second_factor_locked");
pub const SECOND_FACTOR_ENROLMENT_REQUIRED: CodeName = CodeName("second_factor_enrolment_required");
pub const SECOND_FACTOR_ENROLLED: CodeName = CodeName("second_factor_enrolled");
pub const CODE_ALREADY_USED: CodeName = CodeName("code_already_used");
pub const ENROLMENT_ALREADY_SHOWN: CodeName = CodeName("enrolment_already_shown");
pub const NO_ENROLMENT: CodeName = CodeName("no_enrolment");
pub const CODE_AND_RECOVERY_CODE: CodeName = CodeName("code_and_recovery_code");
pub const LOCATION_OUTSIDE: CodeName = CodeName("location_outside");
pub const LOCATION_EXPIRED: CodeName = CodeName("location_expired");
pub const LOCATION_NOT_CHECKED: CodeName = CodeName("location_not_checked");
pub const INVALID_LOCATION_PACKET: CodeName = CodeName("invalid_location_packet");
pub const ADJUSTMENT_NOT_FOUND: CodeName = CodeName("adjustment_not_found");
pub const ADJUSTMENT_DECIDED: CodeName = CodeName("adjustment_decided");
pub const LIMIT_MAY_ONLY_LOWER: CodeName = CodeName("limit_may_only_lower");
