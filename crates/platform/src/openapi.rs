//! What every service's OpenAPI description shares: the bearer-token security scheme.

use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

/// The name routes use in `security(("bearer" = []))`.
pub const BEARER: &str = "bearer";

/// Adds the bearer (JWT) security scheme.
#[derive(Debug)]
pub struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("An access token from `POST /v1/sessions`, or a service token."))
                    .build(),
            ),
        );
    }
}

/// The answer every route may give when it refuses: a 4xx problem with a stable `code`.
/// Routes write `(status = "4XX", response = Refused)`.
#[derive(Debug, utoipa::ToResponse)]
#[response(description = "refused; see `code`", content_type = "application/problem+json")]
pub struct Refused(#[allow(dead_code)] crate::Problem);
