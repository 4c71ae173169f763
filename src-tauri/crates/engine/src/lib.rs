//! Alisio's engine: configuration, the append-only session store, the OpenAI-compatible provider
//! client, the workspace tools and the agent loop. It must not depend on any UI toolkit, so the
//! CLI, the desktop app and the tests all drive the same code.
#![forbid(unsafe_code)]

pub mod agent;
pub mod compaction;
pub mod config;
pub mod demo;
pub mod error;
pub mod events;
pub mod home;
mod ledger;
pub mod provider;
pub mod store;
pub mod tools;
pub mod transcript;
pub mod view;

pub use error::{Error, Result};
