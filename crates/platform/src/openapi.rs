//! What every service's OpenAPI description shares: the bearer-token security scheme.

use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

/// A schema object, as `stored_state!` types describe themselves.
pub use utoipa::openapi::schema::Object as SchemaObject;

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

/// The schema of a string that is one of `values`: what a field documented as "`a`, `b` or `c`"
/// is, said so a client generator makes it a union. Fields use it through
/// `#[schema(schema_with = ...)]`; every `stored_state!` type has its own (`schema`).
pub fn one_of_texts(values: &[&str]) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(values.iter().copied())).build()
}

/// The same for an optional field: one of `values`, or null.
pub fn one_of_texts_or_null(values: &[&str]) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let mut listed: Vec<serde_json::Value> = values.iter().map(|v| serde_json::Value::from(*v)).collect();
    listed.push(serde_json::Value::Null);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(listed))
        .build()
}

/// The form the server takes for an `Idempotency-Key` header (`IdempotencyKey`'s check), said on
/// every operation that reads one, wherever its route declares it.
pub fn declare_idempotency_key_form(doc: &mut OpenApi) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    for item in doc.paths.paths.values_mut() {
        let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
        for operation in operations.into_iter().flatten() {
            for parameter in operation.parameters.iter_mut().flatten() {
                if parameter.parameter_in == ParameterIn::Header
                    && parameter.name.eq_ignore_ascii_case(crate::extract::IDEMPOTENCY_KEY_HEADER)
                {
                    let form = ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[!-~]{1,255}$"));
                    parameter.schema = Some(form.into());
                }
            }
        }
    }
}
