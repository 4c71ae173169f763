//! The compaction bake-off: every strategy head to head on the user's own sessions (`alisio bench
//! compaction`).

use alisio_engine::bench::{bake_off, ArmKind, BakeOff, Judge, Points};
use alisio_engine::config::Strategy;
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactionBenchRequest {
    /// Sessions (ids or unique prefixes), own or imported.
    pub sessions: Vec<String>,
    /// Compact after this message (default: after the last one).
    #[serde(default)]
    #[ts(optional)]
    pub at: Option<i64>,
    /// Compact after every N-th message.
    #[serde(default)]
    #[ts(optional)]
    pub every: Option<u32>,
    /// The arms: native, cache, mask, hybrid, prune, provider, agent (default: every strategy, and `agent`
    /// when a session is imported).
    #[serde(default)]
    #[ts(optional)]
    pub strategies: Option<Vec<String>>,
    /// A profile whose model judges the probes that are not facts (constraints, the latest
    /// request) where the exact check missed them.
    #[serde(default)]
    #[ts(optional)]
    pub judge: Option<String>,
}

/// Forks each session at each point, compacts the fork under each arm, probes and measures it,
/// and removes it; the sessions themselves are only read.
pub async fn compaction(app: &App, request: CompactionBenchRequest) -> ApiResult<BakeOff> {
    if request.sessions.is_empty() {
        return Err(ApiError::invalid("name at least one session to compact"));
    }
    let points = match (request.at, request.every) {
        (Some(_), Some(_)) => return Err(ApiError::invalid("--at and --every cannot be used together")),
        (Some(seq), None) => Points::At(seq),
        (None, Some(0)) => return Err(ApiError::invalid("--every takes a number of messages above 0")),
        (None, Some(n)) => Points::Every(n as usize),
        (None, None) => Points::End,
    };
    let sessions = request.sessions.iter().map(|s| app.session(s)).collect::<ApiResult<Vec<_>>>()?;
    let arms = match &request.strategies {
        Some(names) => names.iter().map(|n| arm(n)).collect::<ApiResult<Vec<_>>>()?,
        None => {
            let mut arms: Vec<ArmKind> = STRATEGIES.iter().map(|s| ArmKind::Strategy(*s)).collect();
            if sessions.iter().any(|s| s.source.is_some()) {
                arms.push(ArmKind::Agent);
            }
            arms
        }
    };
    let judge = match &request.judge {
        Some(profile) => {
            let config = alisio_engine::config::with_profile(&app.config().effective_document(), profile)?;
            Some(Judge::new(&config.provider)?)
        }
        None => None,
    };
    let engine = app.engine()?;
    let forensics = app.forensics()?;
    Ok(bake_off(&engine, &forensics, &sessions, points, &arms, judge.as_ref(), &app.operation()).await?)
}

const STRATEGIES: [Strategy; 6] =
    [Strategy::Native, Strategy::Cache, Strategy::Mask, Strategy::Hybrid, Strategy::Prune, Strategy::Provider];

fn arm(name: &str) -> ApiResult<ArmKind> {
    ArmKind::parse(name).ok_or_else(|| {
        ApiError::invalid(format!("unknown strategy `{name}`: native, cache, mask, hybrid, prune, provider or agent"))
    })
}
