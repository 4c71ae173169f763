//! Every CLI command calls the application API: each leaf command clap declares has a route, and
//! every route names functions the API has.

use clap::CommandFactory;

use super::Cli;

/// Which application-API function each command calls (`alisio <path>` → `module::function`).
/// A test checks this against the commands clap declares and the functions the API has.
pub const ROUTES: &[(&str, &[&str])] = &[
    ("run", &["turns::run"]),
    ("compact now", &["compaction::compact"]),
    ("compact preview", &["compaction::compact"]),
    ("compact plan", &["compaction::strategies"]),
    ("compact apply", &["compaction::apply"]),
    ("compact discard", &["compaction::discard"]),
    ("compact undo", &["compaction::undo"]),
    ("compact lint", &["compaction::lint"]),
    ("compact probe", &["compaction::probe"]),
    ("models", &["models::list"]),
    ("sessions list", &["sessions::list"]),
    ("sessions show", &["views::stored", "views::model"]),
    ("sessions export", &["export::session"]),
    ("sessions recover", &["sessions::recover", "sessions::uncertain"]),
    ("sessions fork", &["forks::fork"]),
    ("sessions diff", &["forks::diff"]),
    ("sessions rename", &["sessions::rename"]),
    ("sessions remove", &["sessions::remove"]),
    ("calls list", &["calls::list"]),
    ("calls show", &["calls::show"]),
    ("calls composition", &["calls::compositions"]),
    ("calls diff", &["calls::diff"]),
    ("calls replay", &["calls::replay"]),
    ("calls breaks", &["calls::breaks"]),
    ("calls rereads", &["calls::rereads"]),
    ("bench compaction", &["bench::compaction"]),
    ("calls savings", &["calls::compaction_costs"]),
    ("usage", &["usage::report", "archive::usage"]),
    ("push", &["archive::push"]),
    ("serve token create", &["archive::token_create"]),
    ("serve token list", &["archive::token_list"]),
    ("serve token revoke", &["archive::token_revoke"]),
    ("prices show", &["prices::show"]),
    ("prices update", &["prices::update"]),
    ("search", &["search::messages", "archive::search"]),
    ("pin", &["pins::add", "pins::list", "pins::remove"]),
    ("import", &["import::paths"]),
    ("mcp list", &["mcp::list"]),
    ("proxy", &["proxy::start", "proxy::stop"]),
];

/// `alisio …` paths of the commands that run something (leaves of clap's tree).
fn leaf_commands(command: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    let subcommands: Vec<&clap::Command> = command.get_subcommands().filter(|c| c.get_name() != "help").collect();
    // `compact` runs with its flag forms as well as through its sub-subcommands: the leaves count.
    if subcommands.is_empty() {
        out.push(prefix.trim().to_string());
    }
    for sub in subcommands {
        leaf_commands(sub, &format!("{prefix} {}", sub.get_name()), out);
    }
}

#[test]
fn every_cli_command_maps_to_an_api_function() {
    let mut leaves = Vec::new();
    leaf_commands(&Cli::command(), "", &mut leaves);
    assert!(leaves.contains(&"sessions export".to_string()) && leaves.contains(&"compact undo".to_string()));
    let routed: Vec<&str> = ROUTES.iter().map(|(path, _)| *path).collect();
    // The shell's completion script is the command line describing itself: no application; `serve`
    // is a transport of the whole registry (as the window is), not one function.
    let transports = ["completions", "serve"];
    let unrouted: Vec<&String> =
        leaves.iter().filter(|l| !routed.contains(&l.as_str()) && !transports.contains(&l.as_str())).collect();
    assert!(unrouted.is_empty(), "commands with no API function: {unrouted:?}");
    let stale: Vec<&str> = routed.iter().filter(|r| !leaves.iter().any(|l| l == *r)).copied().collect();
    assert!(stale.is_empty(), "routes of commands that do not exist: {stale:?}");
    for (path, functions) in ROUTES {
        for function in *functions {
            assert!(alisio_api::FUNCTIONS.contains(function), "`alisio {path}` names {function}, which the API lacks");
        }
    }
}

/// The flag forms of `compact` and its sub-subcommands parse to the same mode.
#[test]
fn compact_modes_parse_in_both_forms() {
    use clap::Parser;
    let mode = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
        Ok(Some(super::Command::Compact(args))) => format!("{:?}", std::mem::discriminant(&args.mode())),
        other => panic!("{args:?} did not parse as compact: {}", other.is_ok()),
    };
    for (flags, sub) in [
        (vec!["alisio", "compact", "s1", "--undo"], vec!["alisio", "compact", "undo", "s1"]),
        (vec!["alisio", "compact", "s1", "--preview"], vec!["alisio", "compact", "preview", "s1"]),
        (vec!["alisio", "compact", "s1", "--apply", "3"], vec!["alisio", "compact", "apply", "s1", "3"]),
        (vec!["alisio", "compact", "s1", "--lint"], vec!["alisio", "compact", "lint", "s1"]),
        (vec!["alisio", "compact", "s1"], vec!["alisio", "compact", "now", "s1"]),
    ] {
        assert_eq!(mode(&flags), mode(&sub), "{flags:?} vs {sub:?}");
    }
    assert!(Cli::try_parse_from(["alisio", "compact"]).is_err(), "a session is required");
}

/// `docs/alisio.1`, the man page a package installs, is generated from the command line clap
/// declares (its agents from the one table); `ALISIO_UPDATE_MAN=1` writes it, and the test fails
/// when it is stale.
#[test]
fn the_man_page_is_generated_from_the_command_line() {
    // The release alone: the commit would make the page differ at every commit.
    let command = super::args::command().version(env!("CARGO_PKG_VERSION"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page).expect("render the man page");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/alisio.1");
    if std::env::var_os("ALISIO_UPDATE_MAN").is_some() {
        std::fs::write(&path, &page).expect("write docs/alisio.1");
    }
    let stored = std::fs::read(&path).unwrap_or_default();
    assert!(stored == page, "docs/alisio.1 is stale: run ALISIO_UPDATE_MAN=1 cargo test -p alisio --bin alisio");
    let text = String::from_utf8_lossy(&page);
    for command in ["import", "sessions", "search", "bench", "completions"] {
        assert!(text.contains(command), "the page lists {command}");
    }
}
