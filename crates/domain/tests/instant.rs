//! The instant and pull-tab game definitions in `games/instant/`, loaded and checked against the
//! figures their rules print, and malformed definitions refused.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use domain::instant::{DefinitionError, GameDefinition, Report};
use serde_json::{Value, json};

fn text(file: &str) -> String {
    std::fs::read_to_string(format!("{}/../../games/instant/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn load(file: &str) -> (GameDefinition, Report) {
    GameDefinition::load(&text(file)).unwrap()
}

#[test]
fn the_pull_tab_games_add_up_to_what_their_rules_print() {
    // (file, number, winners, prize cost in cents, odds "one in", pools) as K.A.R. 111-9-226..228
    // print them in subsections (i) and (j).
    let games = [
        ("283-hit-10.json", 283, 562_561, 148_788_000, 4.27, 8),
        ("284-hit-20.json", 284, 490_594, 234_008_000, 3.67, 6),
        ("282-liquid-gold.json", 282, 499_176, 234_000_000, 3.61, 6),
    ];
    for (file, number, winners, cost, odds, pools) in games {
        let (game, report) = load(file);
        assert_eq!(game.number, number);
        assert_eq!((report.winners, report.prize_cost_cents, report.pools), (winners, cost, pools), "{file}");
        assert!((report.odds_one_in - odds).abs() < 0.005, "{file}: {}", report.odds_one_in);
        assert_eq!(report.source_notes.len(), 2, "the header and loyalty-row notes travel with the game");
        assert!(
            report.mismatches.iter().all(|m| m.what.ends_with("per pool")),
            "{file}: {:?}",
            report.mismatches
        );
    }
}

#[test]
fn top_prizes_that_do_not_divide_into_pools_are_reported() {
    // Hit $10: 25 prizes of $1,000 over 8 pools of 300,000 cannot be "the same number per pool".
    let (_, report) = load("283-hit-10.json");
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(whats, ["winners of $1,000.00 per pool"]);
    assert!(report.mismatches[0].assumed.contains("as evenly as whole numbers allow"));
    let (_, report) = load("284-hit-20.json");
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(whats, ["winners of $2,000.00 per pool"]);
    let (_, report) = load("282-liquid-gold.json");
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
}

#[test]
fn printed_figures_that_disagree_are_reported_not_refused() {
    let mut game: Value = serde_json::from_str(&text("283-hit-10.json")).unwrap();
    game["stated"]["winners"] = json!(562_000);
    game["stated"]["odds_one_in"] = json!(4.5);
    game["prizes"][0]["stated_cost_cents"] = json!(1);
    let (_, report) = GameDefinition::load(&game.to_string()).unwrap();
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert!(whats.contains(&"total winners"), "{whats:?}");
    assert!(whats.contains(&"overall odds"), "{whats:?}");
    assert!(whats.iter().any(|w| w.starts_with("prize cost of $1.00")), "{whats:?}");
    assert_eq!(report.winners, 562_561, "the rows are what counts");
}

/// A change made to a good definition.
type Edit = Box<dyn Fn(&mut Value)>;

#[test]
fn a_malformed_definition_is_refused_with_a_clear_error() {
    let base: Value = serde_json::from_str(&text("283-hit-10.json")).unwrap();
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|g| g["price_cents"] = json!(0)), "price"),
        (Box::new(|g| g["prizes"][3]["composition"] = json!([500, 400])), "adds up to"),
        (Box::new(|g| g["prizes"][2]["composition"] = json!([300, 700])), "no legend line pays"),
        (Box::new(|g| g["prizes"][0]["count"] = json!(0)), "no winners"),
        (Box::new(|g| g["max_wins"] = json!(2)), "wins at most 2"),
        (Box::new(|g| g["symbols"][1]["name"] = json!("stack of cash")), "appears twice"),
        (Box::new(|g| g["legend"][0]["symbol"] = json!("unicorn")), "unknown symbol"),
        (Box::new(|g| g["tickets_ordered"] = json!(2_400_001)), "whole pools"),
        (Box::new(|g| g["ticket_numbers"]["last"] = json!(298)), "whole books"),
        (Box::new(|g| g["prizes"] = json!([])), "no prizes"),
    ];
    for (edit, expected) in cases {
        let mut game = base.clone();
        edit(&mut game);
        match GameDefinition::load(&game.to_string()) {
            Err(DefinitionError::Invalid(message)) => assert!(message.contains(expected), "{message}"),
            other => panic!("expected a refusal mentioning {expected:?}, got {other:?}"),
        }
    }
    for broken in ["{", "{}", &base.to_string().replace("\"rule\"", "\"rules\"")] {
        assert!(matches!(GameDefinition::load(broken), Err(DefinitionError::Malformed(_))), "{broken:.40}");
    }
}

mod print_runs {
    use domain::instant::GameDefinition;
    use domain::instant::print_run::{barcode, barcode_is_valid, face_pays, pool_counts, print_pool};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// A game scaled down for a test: pools of 3,000 tickets with a hundredth of each row's
    /// winners per pool (at least one), the rows' other figures kept.
    fn scaled(file: &str) -> GameDefinition {
        super::load(file).0.scaled(3_000, 100)
    }

    #[test]
    fn every_row_is_spread_over_the_pools_within_one() {
        for file in ["283-hit-10.json", "284-hit-20.json", "282-liquid-gold.json"] {
            let (game, _) = super::load(file);
            let counts = pool_counts(&game);
            assert_eq!(counts.len() as u64, game.tickets_ordered / game.pool_size);
            for (r, row) in game.prizes.iter().enumerate() {
                let per_pool: Vec<u64> = counts.iter().map(|pool| pool[r]).collect();
                assert_eq!(per_pool.iter().sum::<u64>(), row.count, "{file} row {r}");
                let (min, max) = (per_pool.iter().min().unwrap(), per_pool.iter().max().unwrap());
                assert!(max - min <= 1, "{file} row {r}: {per_pool:?}");
            }
            let totals: Vec<u64> = counts.iter().map(|pool| pool.iter().sum()).collect();
            let (min, max) = (totals.iter().min().unwrap(), totals.iter().max().unwrap());
            assert!(max - min <= 1, "{file}: pool totals {totals:?}");
        }
    }

    #[test]
    fn a_printed_run_holds_exactly_its_prizes_and_every_face_agrees() {
        for file in [
            "283-hit-10.json",
            "284-hit-20.json",
            "282-liquid-gold.json",
            "228-electric-8s.json",
            "286-super-red-hot-crossword.json",
        ] {
            let game = scaled(file);
            let mut rng = ChaCha20Rng::seed_from_u64(11);
            let mut won = vec![0u64; game.prizes.len()];
            let mut barcodes = std::collections::HashSet::new();
            for (pool, counts) in pool_counts(&game).iter().enumerate() {
                let tickets = print_pool(&game, 0, u32::try_from(pool).unwrap(), counts, &mut rng).unwrap();
                assert_eq!(tickets.len() as u64, game.pool_size);
                for t in &tickets {
                    let pays = face_pays(&game, &t.face);
                    match t.prize_row {
                        Some(r) => {
                            won[r] += 1;
                            let mut expected = game.prizes[r].composition.clone();
                            let mut got = pays.clone();
                            expected.sort_unstable();
                            got.sort_unstable();
                            assert_eq!(got, expected, "{file}: the face shows exactly its prize");
                        }
                        None => assert!(pays.is_empty(), "{file}: a losing face wins nothing"),
                    }
                    assert!(barcodes.insert(t.barcode.clone()), "barcodes are unique");
                    assert_eq!(barcode_is_valid(&t.barcode), Some((game.number, t.book, t.ticket)));
                    assert_eq!(t.virn.len(), 12);
                }
            }
            let expected: Vec<u64> = game.prizes.iter().map(|r| r.count).collect();
            assert_eq!(won, expected, "{file}: exactly the definition's winners");
        }
    }

    #[test]
    fn electric_8s_faces_show_eleven_spots_and_win_only_what_they_should() {
        use domain::instant::print_run::Face;
        let game = scaled("228-electric-8s.json");
        let eight =
            u16::try_from(game.symbols.iter().position(|s| s.name == "8 (outlined)").unwrap()).unwrap();
        let moneybag =
            u16::try_from(game.symbols.iter().position(|s| s.name == "moneybag").unwrap()).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let counts = pool_counts(&game);
        let tickets = print_pool(&game, 0, 0, &counts[0], &mut rng).unwrap();
        let (mut lines, mut bags) = (0, 0);
        for t in &tickets {
            let Face::TicTacToe { grid, .. } = t.face else { panic!("a grid") };
            let row = t.prize_row.map(|r| &game.prizes[r]);
            let play = row.is_some_and(|r| r.areas.iter().any(|a| a == "play"));
            let bonus = row.is_some_and(|r| r.areas.iter().any(|a| a == "bonus"));
            let has_line =
                [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
                    .iter()
                    .filter(|l| l.iter().all(|&i| grid[i] == eight))
                    .count();
            assert_eq!(has_line, usize::from(play), "exactly one line of 8s when the play area wins");
            assert_eq!(grid.iter().filter(|&&s| s == moneybag).count(), usize::from(bonus));
            lines += has_line;
            bags += usize::from(bonus);
        }
        assert!(lines > 0 && bags > 0);
    }

    #[test]
    fn crossword_faces_complete_exactly_their_legend_words_from_twenty_letters() {
        use domain::instant::crossword::{completed_words, legend, letter_set, words_of};
        use domain::instant::print_run::Face;
        let game = scaled("286-super-red-hot-crossword.json");
        let lines = legend(&game).unwrap();
        assert_eq!(lines.len(), 11, "K.A.R. 111-4-3661(e): eleven legend lines");
        let mut rng = ChaCha20Rng::seed_from_u64(286);
        let counts = pool_counts(&game);
        let tickets = print_pool(&game, 0, 0, &counts[0], &mut rng).unwrap();
        let mut seen_lines = std::collections::HashSet::new();
        for t in &tickets {
            let Face::Crossword { letters, black, red, bonus } = &t.face else { panic!("a crossword") };
            let distinct: std::collections::HashSet<char> = letters.chars().collect();
            assert_eq!((letters.len(), distinct.len()), (20, 20), "twenty different letters");
            assert_ne!(black, red, "two different grids");
            for grid in [black, red] {
                assert_eq!(grid.len(), 100);
                assert_eq!(words_of(grid.as_bytes()).len(), 12);
            }
            let have = letter_set(letters.as_bytes());
            let found = (completed_words(black.as_bytes(), have), completed_words(red.as_bytes(), have));
            let row = t.prize_row.map(|r| &game.prizes[r]);
            match row.and_then(|r| r.areas.iter().position(|a| a == "crossword")) {
                Some(i) => {
                    let cents = row.unwrap().composition[i];
                    let line = lines.iter().find(|l| l.prize_cents == cents).unwrap();
                    assert_eq!(found, (line.black, line.red), "exactly the line's words");
                    seen_lines.insert(cents);
                }
                None => assert!(found.0 + found.1 <= 3, "a losing crossword completes three words at most"),
            }
            let bonus_wins = row.is_some_and(|r| r.areas.iter().any(|a| a == "bonus"));
            assert_eq!(bonus[0] == bonus[1], bonus_wins, "two matching bonus symbols only when it wins");
        }
        assert!(seen_lines.len() >= 8, "most legend lines printed in one scaled pool: {seen_lines:?}");
    }

    #[test]
    fn a_crossword_word_is_read_as_rule_f_says() {
        use domain::instant::crossword::{completed_words, letter_set, words_of};
        // 111-4-3661(f): three letters or more, left to right or top to bottom, every square
        // between two black spaces; a two-letter run is not a word.
        let mut grid = vec![b'#'; 100];
        grid[..5].copy_from_slice(b"CAT#O");
        grid[10] = b'A';
        grid[20] = b'R';
        assert_eq!(words_of(&grid), vec![vec![0, 1, 2], vec![0, 10, 20]]);
        assert_eq!(completed_words(&grid, letter_set(b"CAT")), 1, "CAR lacks its R");
        assert_eq!(completed_words(&grid, letter_set(b"CATR")), 2);
        assert_eq!(completed_words(&grid, letter_set(b"CAR")), 1, "CAT lacks its T");
    }

    #[test]
    fn a_tampered_barcode_fails_its_check_digit() {
        let good = barcode(283, 1234, 56);
        assert_eq!(barcode_is_valid(&good), Some((283, 1234, 56)));
        let digits: Vec<char> = good.chars().collect();
        for i in 0..digits.len() {
            if !digits[i].is_ascii_digit() || i == digits.len() - 1 {
                continue;
            }
            let mut tampered = digits.clone();
            tampered[i] = if digits[i] == '9' { '0' } else { char::from(digits[i] as u8 + 1) };
            let tampered: String = tampered.into_iter().collect();
            assert_eq!(barcode_is_valid(&tampered), None, "{tampered}");
        }
        for bad in
            ["", "283-001234-056", "283-001234-056-x", "28-001234-056-1", "28300123405", "2830012340561x"]
        {
            assert_eq!(barcode_is_valid(bad), None, "{bad}");
        }
        // What a keyboard-wedge scanner types: the 13 digits, no dashes.
        let raw: String = good.chars().filter(char::is_ascii_digit).collect();
        assert_eq!((raw.len(), barcode_is_valid(&raw)), (13, Some((283, 1234, 56))));
        let mut wrong = raw.into_bytes();
        wrong[12] = if wrong[12] == b'9' { b'0' } else { wrong[12] + 1 };
        assert_eq!(barcode_is_valid(&String::from_utf8(wrong).unwrap()), None);
    }

    #[test]
    fn a_virn_is_twelve_digits_with_spaces_or_dashes_ignored() {
        use domain::instant::print_run::virn_digits;
        assert_eq!(virn_digits("1234 5678 9012").as_deref(), Some("123456789012"));
        assert_eq!(virn_digits("1234-5678-9012").as_deref(), Some("123456789012"));
        for bad in ["", "12345678901", "1234567890123", "12345678901x"] {
            assert_eq!(virn_digits(bad), None, "{bad}");
        }
    }
}

#[test]
fn the_instant_games_add_up_to_what_their_rules_print() {
    // K.A.R. 111-4-3662 (Electric 8S) and 111-4-3661 (Super Red Hot Crossword), (i) and (j).
    for (file, winners, cost, odds) in [
        ("228-electric-8s.json", 423_767, 97_856_800, 4.25),
        ("286-super-red-hot-crossword.json", 332_896, 317_500_000, 3.60),
    ] {
        let (game, report) = load(file);
        println!("{} {}: {:?}", game.number, game.name, report.mismatches);
        assert_eq!((report.winners, report.prize_cost_cents), (winners, cost), "{file}");
        assert!((report.odds_one_in - odds).abs() < 0.005, "{file}: {}", report.odds_one_in);
        assert!(
            report.mismatches.iter().all(|m| m.what.ends_with("per pool")),
            "{file}: {:?}",
            report.mismatches
        );
        assert!(game.prizes.iter().all(|p| p.areas.len() == p.composition.len()));
    }
}

#[test]
fn a_part_must_be_paid_in_its_own_area() {
    // $200 is a crossword prize (4 black + 2 red words); the bonus area pays no $200.
    let mut game: Value = serde_json::from_str(&text("286-super-red-hot-crossword.json")).unwrap();
    let row = game["prizes"].as_array().unwrap().iter().position(|r| r["value_cents"] == 20_000).unwrap();
    game["prizes"][row]["areas"] = json!(["bonus"]);
    match GameDefinition::load(&game.to_string()) {
        Err(DefinitionError::Invalid(message)) => {
            assert!(message.contains("no legend line pays"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    game["prizes"][row]["areas"] = json!(["scratch"]);
    assert!(matches!(GameDefinition::load(&game.to_string()), Err(DefinitionError::Invalid(_))));
}
