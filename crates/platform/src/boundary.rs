//! A service's floors (architecture §1) kept by the compiler: every crate outside the service sees
//! only what it exports on purpose (its router, state, settings and the few functions others
//! truly need); the floors themselves are private.
//!
//! The one exception is the service's own integration tests and benchmarks, which drive a floor
//! on the real platform (a saga step under a crash, a store statement's plan, a grouped write).
//! They cannot live beside the code as unit tests: the platform they need is assembled by the
//! `assembly` crate, which depends on the service, so a unit test would hold two copies of the
//! service's types. Each service therefore has a feature `internals`, enabled only by its own
//! dev-dependency on itself: with it, the floors are public to those tests; without it (every
//! other crate, and every build of the binaries), they are private.

/// Declares a floor of a service: `pub` to the service's own tests and benchmarks (feature
/// `internals`), `pub(crate)` otherwise.
///
/// ```text
/// platform::floor!(
///     /// The steps of a round.
///     saga
/// );
/// ```
#[macro_export]
macro_rules! floor {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[cfg(feature = "internals")]
        pub mod $name;
        $(#[$meta])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    };
}
