//! Alisio's application API: every feature written once, as one async function with a typed
//! request and a typed response, grouped by domain. The CLI (`src-tauri/src/cli/`) calls these
//! functions and renders their answers for the terminal; the window invokes the same functions by
//! name through [`dispatch`], and its TypeScript (`ui/src/api.ts`, `ui/src/bindings.ts`) is generated
//! from them. Nothing here knows Tauri or the terminal.

pub mod about;
pub mod app;
pub mod archive;
pub mod bench;
pub mod bindings;
pub mod calls;
pub mod compaction;
pub mod config;
pub mod diff;
pub mod error;
pub mod events;
pub mod export;
pub mod forks;
pub mod import;
pub mod mcp;
pub mod models;
pub mod pins;
pub mod prices;
pub mod proxy;
pub mod reference;
mod registry;
pub mod search;
pub mod serve;
pub mod sessions;
pub mod turns;
pub mod usage;
pub mod views;

pub use app::{Access, App, AppOptions, Approvals};
pub use error::{ApiError, ApiResult, ErrorCode};
pub use events::{Emit, UiEvent};
pub use registry::{dispatch, typescript as typescript_api, COMMANDS, FUNCTIONS};
