//! Alisio's engine: configuration, the append-only session store, the model client layer (HTTP
//! provider, scripted client, call ledger), compaction, the workspace tools and the agent loop.
//! It must not depend on any UI toolkit, so the CLI, the desktop app and the tests all drive the
//! same code. Dependencies point one way: model ← compaction ← agent (docs/ARCHITECTURE.md).
#![forbid(unsafe_code)]

pub mod agent;
pub mod bench;
pub mod calls;
pub mod claim;
pub mod compaction;
pub mod config;
pub mod context;
pub mod cost;
pub mod demo;
pub mod error;
pub mod events;
pub mod export;
pub mod fidelity;
pub mod home;
pub mod ids;
pub mod import;
pub mod mcp;
pub mod model;
pub mod provider;
pub mod proxy;
pub mod redact;
pub mod secrets;
pub mod store;
pub mod telemetry;
pub mod tools;
pub mod transcript;
pub mod view;

pub use error::{Error, Result};

/// Locks `mutex`, taking over one a panicking holder left poisoned (the guarded state stays
/// consistent: every holder writes whole values).
pub fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod layering_tests;

#[cfg(test)]
mod fuzz_tests;
