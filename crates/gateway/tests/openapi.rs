//! The API contract: `openapi.yaml` at the repository root is what the code generates, it
//! describes every route there is, and the gateway serves it.
//!
//! After changing a route: `UPDATE_OPENAPI=1 cargo test -p gateway --test openapi`, then commit.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use utoipa::OpenApi;

fn generated() -> utoipa::openapi::OpenApi {
    gateway::openapi_document(vec![
        ledger::LedgerApi::openapi(),
        draw_games::DrawGamesApi::openapi(),
        table_games::TableGamesApi::openapi(),
        instant::InstantApi::openapi(),
    ])
}

#[test]
fn the_committed_contract_is_what_the_code_generates() {
    let yaml = generated().to_yaml().unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openapi.yaml");
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::write(&path, &yaml).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == yaml,
        "openapi.yaml differs from what the code generates; run `UPDATE_OPENAPI=1 cargo test -p gateway --test openapi` and commit it"
    );
    assert_eq!(gateway::OPENAPI_YAML, committed, "the gateway was built with another openapi.yaml");
}

#[test]
fn every_route_is_described() {
    let doc = generated();
    let mut described = BTreeSet::new();
    for (path, item) in &doc.paths.paths {
        for (method, op) in [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("DELETE", &item.delete),
            ("PATCH", &item.patch),
        ] {
            if let Some(op) = op {
                described.insert((method.to_owned(), path.clone()));
                let responses = &op.responses.responses;
                assert!(
                    responses.keys().any(|k| k.starts_with('2')),
                    "{method} {path} has no success response"
                );
                assert!(responses.contains_key("4XX"), "{method} {path} does not describe its problems");
            }
        }
    }
    let mut routes: BTreeSet<(String, String)> =
        gateway::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())).collect();
    routes.extend(ledger::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(draw_games::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(table_games::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(instant::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.remove(&("GET".to_owned(), "/openapi.yaml".to_owned()));
    let missing: Vec<_> = routes.difference(&described).collect();
    let extra: Vec<_> = described.difference(&routes).collect();
    assert!(missing.is_empty(), "routes missing from the API description: {missing:?}");
    assert!(extra.is_empty(), "described routes that do not exist: {extra:?}");
    assert!(doc.components.as_ref().unwrap().security_schemes.contains_key("bearer"));
}

#[test]
fn path_parameters_are_in_their_paths_and_every_other_one_is_in_the_query() {
    let doc = generated();
    let mut wrong = Vec::new();
    for (path, item) in &doc.paths.paths {
        let operations = [&item.get, &item.put, &item.post, &item.delete, &item.patch];
        for operation in operations.into_iter().flatten() {
            for parameter in operation.parameters.iter().flatten() {
                let in_path = matches!(parameter.parameter_in, utoipa::openapi::path::ParameterIn::Path);
                if in_path != path.contains(&format!("{{{}}}", parameter.name)) {
                    wrong.push(format!("{path}: {}", parameter.name));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "parameters declared in the wrong place: {wrong:?}");
}

/// Two services' types published under one schema name would silently become one (the second
/// overwrites the first when the documents merge), and a client would be told the wrong shape:
/// every name the services share must describe the same schema.
#[test]
fn no_two_services_publish_different_schemas_under_one_name() {
    let docs = [
        ("gateway", gateway::GatewayApi::openapi()),
        ("ledger", ledger::LedgerApi::openapi()),
        ("draw-games", draw_games::DrawGamesApi::openapi()),
        ("table-games", table_games::TableGamesApi::openapi()),
        ("instant", instant::InstantApi::openapi()),
    ];
    let mut seen: std::collections::BTreeMap<String, (&str, String)> = std::collections::BTreeMap::new();
    let mut clashes = Vec::new();
    for (service, doc) in &docs {
        for (name, schema) in doc.components.iter().flat_map(|c| c.schemas.iter()) {
            let json = serde_json::to_string(schema).unwrap();
            match seen.get(name) {
                Some((other, earlier)) if *earlier != json => {
                    clashes.push(format!("{name}: {other} and {service}"));
                }
                Some(_) => {}
                None => {
                    seen.insert(name.clone(), (service, json));
                }
            }
        }
    }
    assert!(clashes.is_empty(), "schema names used for different types: {clashes:?}");
}
