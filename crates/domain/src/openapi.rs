//! The contract's schemas for the tagged enums that other objects flatten into themselves
//! (issue 36, the contract): a craps [`Bet`] (in a bet placed, a change, an outcome) and a
//! blackjack [`Action`] (in a decision). Derived, each would be a `oneOf` of one object per
//! variant, and an object that flattens it an `allOf` over that `oneOf`, which common generators
//! refuse ("cannot take allOf a non-object"). Written here, each is one object: the tag as a
//! string enum and every variant's fields as optional properties, and which fields each variant
//! needs stated as JSON Schema's `if`/`then` (OpenAPI 3.1), so a validator or a generator of
//! requests knows them: a variant missing one is refused (`invalid_body`); a field it does not
//! take is ignored, as it always was. The wire format is the same.

use std::borrow::Cow;

use serde_json::json;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{AllOfBuilder, Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::blackjack::round::Action;
use crate::craps::Bet;
use crate::craps::session::Change;

/// Every craps bet's tag, as the wire names it (kept to the enum by the tests below).
pub const BET_NAMES: &[&str] = &[
    "pass",
    "dont_pass",
    "come",
    "dont_come",
    "come_point",
    "dont_come_point",
    "pass_odds",
    "dont_pass_odds",
    "come_odds",
    "dont_come_odds",
    "put",
    "put_odds",
    "place",
    "buy",
    "lay",
    "hardway",
    "big6",
    "big8",
    "field",
    "any_seven",
    "any_craps",
    "two",
    "three",
    "twelve",
    "eleven",
    "horn",
    "horn_high",
    "world",
    "three_way_craps",
    "hop",
    "split",
    "c_and_e",
    "high_low",
    "ace_deuce_any_craps",
    "all_small",
    "all_tall",
    "make_em_all",
    "hot_shooter",
];

/// The bets that name a number (`number`); a `hop` names its `dice`, a `split` its `halves`.
pub const NUMBER_BETS: &[&str] = &[
    "come_point",
    "dont_come_point",
    "come_odds",
    "dont_come_odds",
    "put",
    "put_odds",
    "place",
    "buy",
    "lay",
    "hardway",
    "horn_high",
];

/// The fields each kind of body needs: for each rule, a body whose `tag` is one of its kinds
/// carries its fields (`then` may narrow them further). An `allOf` of `if`/`then`, added as the
/// object's one extra keyword: utoipa keeps extra keywords in a map without order, and one keyword
/// keeps the generated contract the same from run to run.
fn required_by_kind(tag: &str, rules: &[(&[&str], serde_json::Value)]) -> Option<Extensions> {
    let steps: Vec<serde_json::Value> = rules
        .iter()
        .map(|(kinds, then)| {
            json!({"if": {"properties": {tag: {"enum": kinds}}, "required": [tag]}, "then": then})
        })
        .collect();
    Some([("allOf", serde_json::Value::Array(steps))].into_iter().collect())
}

/// Every blackjack decision's tag.
pub const ACTION_NAMES: &[&str] =
    &["hit", "stand", "double", "split", "insurance", "decline_insurance", "even_money"];

/// Every change to a craps layout's tag.
pub const CHANGE_NAMES: &[&str] = &["place", "reduce", "remove", "working"];

fn string_enum(names: &[&str], description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names.iter().copied()))
        .description(Some(description))
}

fn integer(minimum: i64, maximum: i64, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(minimum))
        .maximum(Some(maximum))
        .description(Some(description))
}

impl PartialSchema for Bet {
    fn schema() -> RefOr<Schema> {
        let die = integer(1, 6, "a die's face");
        ObjectBuilder::new()
            .description(Some(
                "A craps bet (K.A.R. 111-501-44(c)): `bet` names it; a bet on a number names it \
                 (`come_point`, `dont_come_point`, `come_odds`, `dont_come_odds`, `put`, `put_odds`, \
                 `place`, `buy`, `lay`, `hardway`, `horn_high`); a hop names its `dice`, a split its \
                 two `halves`. No other bet takes those fields.",
            ))
            .property("bet", string_enum(BET_NAMES, "the bet"))
            .required("bet")
            .property(
                "number",
                integer(2, 12, "the box number (4, 5, 6, 8, 9, 10); a horn high's extra unit (2, 3, 11, 12)"),
            )
            .property(
                "dice",
                ArrayBuilder::new()
                    .items(die)
                    .min_items(Some(2))
                    .max_items(Some(2))
                    .description(Some("a hop's two dice")),
            )
            .property(
                "halves",
                ArrayBuilder::new()
                    .items(RefOr::Ref(Ref::from_schema_name(crate::craps::Proposition::name())))
                    .min_items(Some(2))
                    .max_items(Some(2))
                    .description(Some("a split's two propositions")),
            )
            .extensions(required_by_kind(
                "bet",
                &[
                    (NUMBER_BETS, json!({"required": ["number"]})),
                    (&["hop"], json!({"required": ["dice"]})),
                    (&["split"], json!({"required": ["halves"]})),
                ],
            ))
            .into()
    }
}

impl ToSchema for Bet {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Bet")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((crate::craps::Proposition::name().into(), crate::craps::Proposition::schema()));
    }
}

impl PartialSchema for Change {
    fn schema() -> RefOr<Schema> {
        let change = ObjectBuilder::new()
            .property("change", string_enum(CHANGE_NAMES, "what to do with the bet"))
            .required("change")
            .property(
                "amount_cents",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(0))
                    .description(Some("`place`: the amount added; `reduce`: the amount left")),
            )
            .property(
                "working",
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::Boolean))
                    .description(Some("`working`: `true` calls the bet on, `false` off (45(f))")),
            )
            .extensions(required_by_kind(
                "change",
                &[
                    (&["place", "reduce"], json!({"required": ["amount_cents"]})),
                    (&["working"], json!({"required": ["working"]})),
                ],
            ));
        AllOfBuilder::new()
            .item(RefOr::Ref(Ref::from_schema_name(Bet::name())))
            .item(change)
            .description(Some(
                "A change to the layout before a roll: `place` (make or add to a bet, `amount_cents`), \
                 `reduce` (to `amount_cents`), `remove`, or `working` (`working`).",
            ))
            .into()
    }
}

impl ToSchema for Change {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Change")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Bet::name().into(), Bet::schema()));
        <Bet as ToSchema>::schemas(schemas);
    }
}

impl PartialSchema for Action {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some(
                "A blackjack decision: `hit`, `stand`, `double` (optional `amount`, up to the wager; \
                 K.A.R. 111-301-6(g)(3)), `split`, `insurance` (`spot`, `amount` up to half its wager; \
                 6(g)(2)), `decline_insurance` (`spot`) or `even_money` (`spot`). No other decision \
                 takes those fields.",
            ))
            .property("action", string_enum(ACTION_NAMES, "the decision"))
            .required("action")
            .property(
                "amount",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(1))
                    .description(Some("cents: a double's or an insurance's amount")),
            )
            .property("spot", integer(0, 6, "the spot an insurance or even-money decision is for"))
            .extensions(required_by_kind(
                "action",
                &[
                    (
                        &["insurance"],
                        json!({"required": ["spot", "amount"], "properties": {"amount": {"type": "integer"}}}),
                    ),
                    (&["decline_insurance", "even_money"], json!({"required": ["spot"]})),
                ],
            ))
            .into()
    }
}

impl ToSchema for Action {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Action")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One bet of each kind ([`every_kind_is_listed`] makes a new kind not compile until it is
    /// here), and then the test asks for its name in [`BET_NAMES`].
    fn one_of_each() -> Vec<Bet> {
        use crate::craps::Proposition::{Three, Two};
        let every = vec![
            Bet::Pass,
            Bet::DontPass,
            Bet::Come,
            Bet::DontCome,
            Bet::ComePoint { number: 4 },
            Bet::DontComePoint { number: 4 },
            Bet::PassOdds,
            Bet::DontPassOdds,
            Bet::ComeOdds { number: 4 },
            Bet::DontComeOdds { number: 4 },
            Bet::Put { number: 4 },
            Bet::PutOdds { number: 4 },
            Bet::Place { number: 4 },
            Bet::Buy { number: 4 },
            Bet::Lay { number: 4 },
            Bet::Hardway { number: 4 },
            Bet::Big6,
            Bet::Big8,
            Bet::Field,
            Bet::AnySeven,
            Bet::AnyCraps,
            Bet::Two,
            Bet::Three,
            Bet::Twelve,
            Bet::Eleven,
            Bet::Horn,
            Bet::HornHigh { number: 2 },
            Bet::World,
            Bet::ThreeWayCraps,
            Bet::Hop { dice: [1, 2] },
            Bet::Split { halves: [Two, Three] },
            Bet::CAndE,
            Bet::HighLow,
            Bet::AceDeuceAnyCraps,
            Bet::AllSmall,
            Bet::AllTall,
            Bet::MakeEmAll,
            Bet::HotShooter,
        ];
        every.iter().for_each(every_kind_is_listed);
        every
    }

    /// Has no catch-all: a new kind of bet does not compile until it is listed here, and so in
    /// [`one_of_each`].
    fn every_kind_is_listed(bet: &Bet) {
        match bet {
            Bet::Pass
            | Bet::DontPass
            | Bet::Come
            | Bet::DontCome
            | Bet::ComePoint { .. }
            | Bet::DontComePoint { .. }
            | Bet::PassOdds
            | Bet::DontPassOdds
            | Bet::ComeOdds { .. }
            | Bet::DontComeOdds { .. }
            | Bet::Put { .. }
            | Bet::PutOdds { .. }
            | Bet::Place { .. }
            | Bet::Buy { .. }
            | Bet::Lay { .. }
            | Bet::Hardway { .. }
            | Bet::Big6
            | Bet::Big8
            | Bet::Field
            | Bet::AnySeven
            | Bet::AnyCraps
            | Bet::Two
            | Bet::Three
            | Bet::Twelve
            | Bet::Eleven
            | Bet::Horn
            | Bet::HornHigh { .. }
            | Bet::World
            | Bet::ThreeWayCraps
            | Bet::Hop { .. }
            | Bet::Split { .. }
            | Bet::CAndE
            | Bet::HighLow
            | Bet::AceDeuceAnyCraps
            | Bet::AllSmall
            | Bet::AllTall
            | Bet::MakeEmAll
            | Bet::HotShooter => {}
        }
    }

    #[test]
    fn the_contract_names_every_bet_and_only_bets_the_server_takes() {
        let named: Vec<String> = one_of_each()
            .into_iter()
            .map(|bet| serde_json::to_value(bet).unwrap()["bet"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(named, BET_NAMES.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>());
        // Each one's form as the contract describes it is taken back.
        for bet in one_of_each() {
            let wire = serde_json::to_value(bet).unwrap();
            let fields: Vec<&String> = wire.as_object().unwrap().keys().collect();
            assert!(
                fields.iter().all(|f| ["bet", "number", "dice", "halves"].contains(&f.as_str())),
                "{wire}"
            );
            assert_eq!(serde_json::from_value::<Bet>(wire).unwrap(), bet);
        }
    }

    /// The fields the contract's `if`/`then` rules in `schema` say a body of kind `name` needs.
    fn needed(schema: &serde_json::Value, tag: &str, name: &str) -> Vec<String> {
        let rules = schema["allOf"].as_array().cloned().unwrap_or_default();
        let mut fields = Vec::new();
        for rule in rules.iter().filter(|r| r.get("if").is_some()) {
            let kinds = rule["if"]["properties"][tag]["enum"].as_array().unwrap();
            if kinds.iter().any(|k| k == name) {
                fields.extend(
                    rule["then"]["required"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f.as_str().unwrap().to_owned()),
                );
            }
        }
        fields
    }

    /// A value each field may take (for `bet`, a number its kind takes).
    fn sample(field: &str, kind: &str) -> serde_json::Value {
        match field {
            "number" if kind == "horn_high" => json!(2),
            "number" => json!(6),
            "dice" => json!([1, 2]),
            "halves" => json!(["two", "three"]),
            "spot" => json!(0),
            "amount" => json!(100),
            "amount_cents" => json!(500),
            "working" => json!(true),
            other => panic!("no sample for {other}"),
        }
    }

    /// For every kind: a body with the fields the contract says it needs is taken, and without
    /// any one of them refused; so the contract states exactly what the server needs.
    fn contract_states_what_is_needed<T: serde::de::DeserializeOwned>(
        schema: &serde_json::Value,
        tag: &str,
        kinds: &[&str],
        base: &serde_json::Value,
    ) {
        for kind in kinds {
            let fields = needed(schema, tag, kind);
            let mut body = base.clone();
            body[tag] = json!(kind);
            for field in &fields {
                body[field] = sample(field, kind);
            }
            assert!(serde_json::from_value::<T>(body.clone()).is_ok(), "{body} is refused");
            for field in &fields {
                let mut short = body.clone();
                short.as_object_mut().unwrap().remove(field);
                assert!(
                    serde_json::from_value::<T>(short.clone()).is_err(),
                    "{short} is taken without {field}"
                );
            }
        }
    }

    #[test]
    fn the_contract_states_the_fields_each_kind_needs() {
        let bet = serde_json::to_value(Bet::schema()).unwrap();
        contract_states_what_is_needed::<Bet>(&bet, "bet", BET_NAMES, &json!({}));
        let action = serde_json::to_value(Action::schema()).unwrap();
        contract_states_what_is_needed::<Action>(&action, "action", ACTION_NAMES, &json!({}));
        let change = serde_json::to_value(Change::schema()).unwrap();
        let change = &change["allOf"][1];
        contract_states_what_is_needed::<Change>(change, "change", CHANGE_NAMES, &json!({"bet": "pass"}));
    }

    #[test]
    fn every_action_and_change_name_is_one_the_server_takes() {
        for name in ACTION_NAMES {
            let taken =
                [serde_json::json!({}), serde_json::json!({"spot": 0, "amount": 100})].iter().any(|extra| {
                    let mut action = extra.clone();
                    action["action"] = serde_json::json!(name);
                    serde_json::from_value::<Action>(action).is_ok()
                });
            assert!(taken, "{name} is not a decision the server takes");
        }
        for name in CHANGE_NAMES {
            let taken = [
                serde_json::json!({"amount_cents": 500}),
                serde_json::json!({"working": true}),
                serde_json::json!({}),
            ]
            .iter()
            .any(|extra| {
                let mut change = extra.clone();
                change["change"] = serde_json::json!(name);
                change["bet"] = serde_json::json!("pass");
                serde_json::from_value::<Change>(change).is_ok()
            });
            assert!(taken, "{name} is not a change the server takes");
        }
    }
}
