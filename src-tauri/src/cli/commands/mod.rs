//! One module per command family: each turns its arguments into application-API requests and
//! hands the answers to the output seam.

pub mod calls;
pub mod compact;
pub mod import;
pub mod proxy;
pub mod run;
pub mod servers;
pub mod sessions;
pub mod team;
