//! Saga states stored as text: one macro makes the enum, its stored names and their parsing, so
//! every service's typed states read the same way (ADR 0006).

/// Defines a state enum stored as text: `as_str` gives its stored name, `parse` reads one back
/// (an unknown name is an internal error: the database holds only what the service wrote). The
/// enum is a Postgres `text` to sqlx, so a compile-checked query reads a column as the state
/// itself (`state AS "state: PackState"`) and binds one as its name; a view serializes it as its
/// name too (its schema: `schema_with = PackState::schema`).
#[macro_export]
macro_rules! stored_state {
    ($(#[$doc:meta])* $vis:vis $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name { $($variant),+ }

        impl $name {
            /// Every state as stored, in declaration order.
            pub const TEXTS: &'static [&'static str] = &[$($text),+];

            /// The schema of a field holding one of these states as text.
            pub fn schema() -> $crate::openapi::SchemaObject {
                $crate::openapi::one_of_texts(Self::TEXTS)
            }

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Result<Self, $crate::AppError> {
                match text {
                    $($text => Ok($name::$variant),)+
                    other => Err($crate::AppError::internal(format!(
                        concat!("unknown ", stringify!($name), " {:?}"),
                        other
                    ))),
                }
            }
        }

        impl $crate::__serde::Serialize for $name {
            fn serialize<S: $crate::__serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as $crate::__serde::Deserialize>::deserialize(deserializer)?;
                $name::parse(&text).map_err(<D::Error as $crate::__serde::de::Error>::custom)
            }
        }

        impl $crate::__sqlx::Type<$crate::__sqlx::Postgres> for $name {
            fn type_info() -> $crate::__sqlx::postgres::PgTypeInfo {
                <&str as $crate::__sqlx::Type<$crate::__sqlx::Postgres>>::type_info()
            }

            fn compatible(ty: &$crate::__sqlx::postgres::PgTypeInfo) -> bool {
                <&str as $crate::__sqlx::Type<$crate::__sqlx::Postgres>>::compatible(ty)
            }
        }

        impl<'r> $crate::__sqlx::Decode<'r, $crate::__sqlx::Postgres> for $name {
            fn decode(
                value: $crate::__sqlx::postgres::PgValueRef<'r>,
            ) -> Result<Self, $crate::__sqlx::error::BoxDynError> {
                let text = <&str as $crate::__sqlx::Decode<$crate::__sqlx::Postgres>>::decode(value)?;
                $name::parse(text).map_err(|e| e.to_string().into())
            }
        }

        impl $crate::__sqlx::Encode<'_, $crate::__sqlx::Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut $crate::__sqlx::postgres::PgArgumentBuffer,
            ) -> Result<$crate::__sqlx::encode::IsNull, $crate::__sqlx::error::BoxDynError> {
                <&str as $crate::__sqlx::Encode<$crate::__sqlx::Postgres>>::encode_by_ref(&self.as_str(), buf)
            }
        }
    };
}
