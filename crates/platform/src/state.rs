//! Saga states stored as text: one macro makes the enum, its stored names and their parsing, so
//! every service's typed states read the same way (ADR 0006).

/// Defines a state enum stored as text: `as_str` gives its stored name, `parse` reads one back
/// (an unknown name is an internal error: the database holds only what the service wrote).
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
    };
}
