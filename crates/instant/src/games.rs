//! The games this service runs: their definitions, carried in the binary from `games/instant/`
//! and checked at start.

use domain::instant::{DefinitionError, GameDefinition, Report};

/// The definitions, as transcribed from their rules.
const DEFINITIONS: [&str; 5] = [
    include_str!("../../../games/instant/283-hit-10.json"),
    include_str!("../../../games/instant/284-hit-20.json"),
    include_str!("../../../games/instant/282-liquid-gold.json"),
    include_str!("../../../games/instant/228-electric-8s.json"),
    include_str!("../../../games/instant/286-super-red-hot-crossword.json"),
];

/// Every carried definition, checked; a malformed one stops the service from starting.
pub fn carried() -> Result<Vec<(GameDefinition, Report)>, DefinitionError> {
    DEFINITIONS.iter().map(|text| GameDefinition::load(text)).collect()
}

/// Every carried game at a smaller scale (see `GameDefinition::scaled`), checked: for tests and
/// demonstrations, where a full run of millions of tickets would only take time.
pub fn carried_scaled(
    pool_size: u64,
    divisor: u64,
) -> Result<Vec<(GameDefinition, Report)>, DefinitionError> {
    carried()?
        .into_iter()
        .map(|(game, _)| {
            let scaled = game.scaled(pool_size, divisor);
            let report = scaled.check()?;
            Ok((scaled, report))
        })
        .collect()
}
