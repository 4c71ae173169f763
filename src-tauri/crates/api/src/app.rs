//! The application: one home (its config and database), the engine built from the configuration in
//! force, the turns running now, and where events go. Both faces open one — the CLI per command, the
//! window for its lifetime — with the same options (`--config`, `--profile`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use alisio_engine::agent::Engine;
use alisio_engine::config::{self, Config, LoadedConfig};
use alisio_engine::events::{Envelope, EventSink};
use alisio_engine::home::DB_FILE;
use alisio_engine::lock;
use alisio_engine::store::{Session, Store};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::error::ApiResult;
use crate::events::{Emit, UiEvent};

/// How the database is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only shown: opened without writing, so a read-only `$ALISIO_HOME` works.
    Read,
    /// Changed: created or upgraded as needed.
    Write,
    /// The window: writable when it can be, else shown read-only.
    WriteOrRead,
}

/// Who answers a tool call whose permission is "ask".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approvals {
    /// The CLI: `--yes` approves, otherwise it is refused.
    Fixed(bool),
    /// The window: a `PermissionRequest` event, answered by `turns_answer_permission`.
    Ask,
}

pub struct AppOptions {
    pub home: PathBuf,
    /// `--config FILE`, overlaid on `$ALISIO_HOME/config.json`.
    pub overlay: Option<PathBuf>,
    /// `--profile NAME`, in force instead of `activeProfile`.
    pub profile: Option<String>,
    pub access: Access,
    pub approvals: Approvals,
    pub emit: Emit,
}

/// Turns running now and tool calls waiting for the window's answer.
#[derive(Default)]
pub(crate) struct Live {
    pub turns: HashMap<String, CancellationToken>,
    pub permissions: HashMap<u64, oneshot::Sender<bool>>,
    pub next_permission: u64,
}

pub struct App {
    pub(crate) options: AppOptions,
    loaded: Mutex<LoadedConfig>,
    store: Mutex<Option<Arc<Store>>>,
    engine: Mutex<Option<Arc<Engine>>>,
    pub(crate) live: Arc<Mutex<Live>>,
    /// Cancelled when the process is interrupted: running turns and follows stop.
    cancel: CancellationToken,
    /// The session the last operation worked on (telemetry failures are reported on it).
    last_session: Mutex<Option<String>>,
    pub(crate) demo: tokio::sync::Mutex<()>,
    /// The recording proxy, while it runs.
    pub(crate) proxy: tokio::sync::Mutex<Option<crate::proxy::Running>>,
    /// Whether the session list was read once (the window's first paint).
    listed: tokio::sync::watch::Sender<bool>,
}

impl App {
    /// Loads the configuration in force (an invalid one fails here, naming the key); the database
    /// is opened when first needed.
    pub fn open(options: AppOptions) -> ApiResult<App> {
        let loaded = config::open(&options.home, options.overlay.as_deref(), options.profile.as_deref())?;
        Ok(App {
            options,
            loaded: Mutex::new(loaded),
            store: Mutex::default(),
            engine: Mutex::default(),
            live: Arc::default(),
            cancel: CancellationToken::new(),
            last_session: Mutex::default(),
            demo: tokio::sync::Mutex::new(()),
            proxy: tokio::sync::Mutex::new(None),
            listed: tokio::sync::watch::Sender::new(false),
        })
    }

    pub fn home(&self) -> &Path {
        &self.options.home
    }

    /// Notes that the session list was read (its first reader painted).
    pub(crate) fn mark_listed(&self) {
        self.listed.send_replace(true);
    }

    /// Waits until the session list was read once, or `at_most`: the window's follower lets the
    /// first paint go first (its first round reads every followed file, the list waits otherwise).
    pub async fn listed(&self, at_most: std::time::Duration) {
        let mut seen = self.listed.subscribe();
        let _ = tokio::time::timeout(at_most, seen.wait_for(|listed| *listed)).await;
    }

    /// The configuration in force.
    pub fn config(&self) -> Config {
        lock(&self.loaded).config.clone()
    }

    /// Reads the configuration files again (after Settings saved one): the next operation runs
    /// with them.
    pub(crate) fn reload(&self) -> ApiResult<()> {
        let options = &self.options;
        let loaded = config::open(&options.home, options.overlay.as_deref(), options.profile.as_deref())?;
        *lock(&self.loaded) = loaded;
        *lock(&self.engine) = None;
        Ok(())
    }

    /// Prices (the shipped table, the snapshots loaded with `prices update`, config `prices`) and
    /// the cache lifetime in force.
    pub fn forensics(&self) -> ApiResult<alisio_engine::calls::Forensics> {
        Ok(alisio_engine::calls::Forensics::load(&self.config(), self.home())?)
    }

    pub fn store(&self) -> ApiResult<Arc<Store>> {
        let mut slot = lock(&self.store);
        if let Some(store) = &*slot {
            return Ok(store.clone());
        }
        let path = self.options.home.join(DB_FILE);
        let store = Arc::new(match self.options.access {
            Access::Read => Store::open_for_reading(&path)?,
            Access::Write => Store::open(&path)?,
            // A read-only home still shows its sessions (runs then fail with the database's own message).
            Access::WriteOrRead => Store::open(&path).or_else(|err| Store::open_for_reading(&path).map_err(|_| err))?,
        });
        *slot = Some(store.clone());
        Ok(store)
    }

    /// The engine for the configuration in force (built on first use, again after a reload).
    pub fn engine(&self) -> ApiResult<Arc<Engine>> {
        let store = self.store()?;
        let mut slot = lock(&self.engine);
        if let Some(engine) = &*slot {
            return Ok(engine.clone());
        }
        let engine = Arc::new(Engine::new(self.config(), store)?);
        *slot = Some(engine.clone());
        Ok(engine)
    }

    /// The session a command names (its id or a unique prefix), resolved once here.
    pub fn session(&self, id_or_prefix: &str) -> ApiResult<Session> {
        let session = self.store()?.resolve_session(id_or_prefix)?;
        self.touched(&session.id);
        Ok(session)
    }

    pub(crate) fn touched(&self, session: &str) {
        *lock(&self.last_session) = Some(session.to_string());
    }

    pub(crate) fn emit(&self, event: UiEvent) {
        (self.options.emit)(event)
    }

    /// Where events go, for work done off the async runtime.
    pub(crate) fn events(&self) -> crate::events::Emit {
        self.options.emit.clone()
    }

    /// Engine events of one operation, delivered as [`UiEvent::Engine`].
    pub(crate) fn sink(&self) -> impl EventSink + 'static {
        let emit = self.options.emit.clone();
        move |envelope: &Envelope| emit(UiEvent::Engine { envelope: envelope.clone() })
    }

    /// A token for one operation: cancelled with the application (an interrupt).
    pub(crate) fn operation(&self) -> CancellationToken {
        self.cancel.child_token()
    }

    /// Waits until the application is interrupted (Ctrl-C, SIGTERM, [`App::interrupt`]).
    pub async fn interrupted(&self) {
        self.cancel.cancelled().await
    }

    /// Cancels what runs now: a running tool's process group is killed and its result recorded.
    pub fn interrupt(&self) {
        self.cancel.cancel();
    }

    /// Cancels running operations on Ctrl-C or SIGTERM (the CLI, for commands that run).
    pub fn interrupt_on_signals(self: &Arc<Self>) {
        let app = self.clone();
        tokio::spawn(async move {
            let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            let terminated = async {
                match terminate.as_mut() {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminated => {}
            }
            app.interrupt();
        });
    }

    /// Ends what this application started: MCP servers stopped, queued spans sent (a collector
    /// failure is reported once, on the session last worked on).
    pub async fn close(&self) {
        if let Some(running) = self.proxy.lock().await.take() {
            crate::proxy::stop_running(running).await;
        }
        let engine = lock(&self.engine).clone();
        if let Some(engine) = engine {
            engine.mcp().shutdown().await;
            let session = lock(&self.last_session).clone();
            engine.flush_telemetry(session.as_deref(), &self.sink()).await;
        }
    }
}
