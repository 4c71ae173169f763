//! End-to-end tests: the real `alisio` binary against a scripted model server on 127.0.0.1, with
//! assertions on the requests the server received, the events printed and the database rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod agent_loop;
mod agents;
mod anthropic;
mod api;
mod archive;
mod atif;
mod bench;
mod cache;
mod calls;
mod compaction;
mod cost;
mod failures;
mod fidelity;
mod forks;
mod guard;
mod hardening;
mod house;
mod import;
mod kilo;
mod library;
mod long_session;
mod mcp;
mod orphans;
mod pins;
mod profiles;
mod provider;
mod proxy;
mod prune;
mod real_server;
mod rereads;
mod search;
mod serve;
mod share;
mod snapshots;
mod surface;
mod tools;
mod uncertain;
