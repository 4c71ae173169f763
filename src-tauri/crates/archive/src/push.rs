//! `alisio push`: a home's sessions to the archive, incrementally. Each session's fingerprint (its
//! title, last change, messages, calls, records and pins) says whether anything changed since the
//! last push; a changed one sends the messages past the seq the archive holds, in pages that commit
//! with the seq they reach, then its calls past the last one held (each priced at the prices in
//! force), its records and pins, and last the fingerprint. A push killed anywhere leaves the archive
//! a prefix of the home that the next push completes; pushing twice sends nothing the second time.
//! Everything is redacted (the secret catalog, and the provider keys always) before it leaves.

use std::collections::HashMap;

use alisio_engine::calls::Forensics;
use alisio_engine::redact::{Redactions, Redactor};
use alisio_engine::store::rows::Row;
use alisio_engine::store::{ModelCallRecord, Session, SessionId, SessionSummary, Store};
use serde::Serialize;
use serde_json::{json, Value};
use tokio_postgres::types::ToSql;
use tokio_util::sync::CancellationToken;

use crate::{Archive, ArchiveError, Result};

/// Messages sent (and committed) at a time.
const PAGE: usize = 1_000;

/// What a push sent, or would send.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PushReport {
    /// Sessions with something new.
    pub sessions: u64,
    pub messages: u64,
    pub calls: u64,
    /// Secrets redacted from what was sent.
    pub redactions: u64,
    /// The archive, the machine and the user it was sent as.
    pub archive: String,
    pub machine: String,
    pub user: String,
    /// Nothing was written: what would have been sent.
    pub dry_run: bool,
}

/// How a push redacts.
pub struct Redaction {
    /// The secret catalog (and the keys), or only the keys (`redact: false`).
    catalog: Option<Redactor>,
    keys: Vec<String>,
}

impl Redaction {
    /// `catalog`: redact with the secret catalog; the provider keys (`keys`) are removed always.
    pub fn new(catalog: bool, keys: Vec<String>) -> Result<Redaction> {
        let keys: Vec<String> = keys.into_iter().filter(|k| k.len() >= 8).collect();
        let catalog = if catalog { Some(Redactor::new(&keys, &[])?) } else { None };
        Ok(Redaction { catalog, keys })
    }

    fn text(&self, text: &str, at: &str, found: &mut Redactions) -> String {
        let text = match &self.catalog {
            Some(r) => r.decoded(text, at, found),
            None => self.keys.iter().fold(text.to_string(), |t, k| t.replace(k.as_str(), "[redacted]")),
        };
        // PostgreSQL's text holds no NUL.
        text.replace('\0', "\u{2400}")
    }

    fn json(&self, mut value: Value, at: &str, found: &mut Redactions) -> Value {
        match &self.catalog {
            Some(r) => r.json(&mut value, at, found),
            None => {
                let text = self.text(&value.to_string(), at, found);
                value = serde_json::from_str(&text).unwrap_or(value);
            }
        }
        // Nor does jsonb: a NUL escape is refused.
        let text = value.to_string();
        if text.contains("\\u0000") {
            value = serde_json::from_str(&text.replace("\\u0000", "\\u2400")).unwrap_or(Value::Null);
        }
        value
    }
}

/// What the archive holds of one session.
struct Held {
    fingerprint: String,
    seq: i64,
    call: i64,
}

/// One push of every session of `store` whose fingerprint changed; `dry_run` writes nothing. The
/// sessions are shared out among `lanes` (connections to one archive, as many as given), which
/// send at once: one lane's wait on PostgreSQL is another's time to read and redact.
pub async fn push(
    lanes: &mut [Archive],
    store: &Store,
    forensics: &Forensics,
    redaction: &Redaction,
    dry_run: bool,
    cancel: &CancellationToken,
) -> Result<PushReport> {
    let first = lanes.first().ok_or_else(|| ArchiveError::Config("a push needs a connection".into()))?;
    let mut report = PushReport {
        archive: first.name.clone(),
        machine: first.machine.clone(),
        user: first.user.clone(),
        dry_run,
        ..PushReport::default()
    };
    let mut held = held(first).await?;
    let fingerprints = store.push_fingerprints()?;
    let mut shares: Vec<Vec<Changed>> = lanes.iter().map(|_| Vec::new()).collect();
    let mut next = 0;
    for summary in store.list_sessions()? {
        let fingerprint = fingerprints.get(&summary.id).cloned().unwrap_or_default();
        let before = held.remove(summary.id.as_str());
        if before.as_ref().is_some_and(|h| h.fingerprint == fingerprint) {
            continue;
        }
        shares[next % lanes.len()].push(Changed { summary, fingerprint, before });
        next += 1;
    }
    let sends = lanes
        .iter_mut()
        .zip(shares)
        .map(|(lane, share)| send(lane, share, Context { store, forensics, redaction, dry_run, cancel }));
    for sent in futures_util::future::join_all(sends).await {
        let (sessions, messages, calls, found) = sent?;
        report.sessions += sessions;
        report.messages += messages;
        report.calls += calls;
        report.redactions += found;
    }
    Ok(report)
}

/// A session with something new: its line in the library, its fingerprint, what the archive holds.
struct Changed {
    summary: SessionSummary,
    fingerprint: String,
    before: Option<Held>,
}

/// What every lane reads from.
#[derive(Clone, Copy)]
struct Context<'a> {
    store: &'a Store,
    forensics: &'a Forensics,
    redaction: &'a Redaction,
    dry_run: bool,
    cancel: &'a CancellationToken,
}

/// One lane's sessions, one after another: (sessions, messages, calls, secrets redacted).
async fn send(lane: &mut Archive, share: Vec<Changed>, cx: Context<'_>) -> Result<(u64, u64, u64, u64)> {
    let mut found = Redactions::default();
    let (mut sessions, mut messages, mut calls) = (0, 0, 0);
    for changed in share {
        if cx.cancel.is_cancelled() {
            return Err(ArchiveError::Engine(alisio_engine::Error::Cancelled));
        }
        let session = cx.store.resolve_session(changed.summary.id.as_str())?;
        let one = Push {
            archive: &mut *lane,
            store: cx.store,
            forensics: cx.forensics,
            redaction: cx.redaction,
            dry_run: cx.dry_run,
            found: &mut found,
        };
        let (m, c) = one.session(&changed.summary, &session, changed.before.as_ref(), &changed.fingerprint).await?;
        sessions += 1;
        messages += m;
        calls += c;
    }
    Ok((sessions, messages, calls, found.total()))
}

/// What the archive holds of this machine's sessions.
async fn held(archive: &Archive) -> Result<HashMap<String, Held>> {
    let rows = archive
        .client
        .query("SELECT id, fingerprint, pushed_seq, pushed_call FROM sessions WHERE machine = $1", &[&archive.machine])
        .await
        .map_err(|e| archive.fail(e))?;
    Ok(rows
        .into_iter()
        .map(|r| (r.get::<_, String>(0), Held { fingerprint: r.get(1), seq: r.get(2), call: r.get(3) }))
        .collect())
}

struct Push<'a> {
    archive: &'a mut Archive,
    store: &'a Store,
    forensics: &'a Forensics,
    redaction: &'a Redaction,
    dry_run: bool,
    found: &'a mut Redactions,
}

impl Push<'_> {
    /// One changed session: (messages, calls) sent.
    async fn session(
        mut self,
        summary: &SessionSummary,
        session: &Session,
        before: Option<&Held>,
        fingerprint: &str,
    ) -> Result<(u64, u64)> {
        let id = &summary.id;
        let (mut seq, last_call) = before.map_or((0, 0), |h| (h.seq, h.call));
        if !self.dry_run {
            self.upsert_session(summary, session).await?;
        }
        let mut messages = 0;
        loop {
            let page = self.store.message_rows(id, seq, PAGE)?;
            let Some(last) = page.last().and_then(|m| m.get("seq")?.as_i64()) else { break };
            messages += page.len() as u64;
            self.messages(id, page, last).await?;
            seq = last;
        }
        let calls: Vec<_> = self.store.model_calls(id)?.into_iter().filter(|c| c.id > last_call).collect();
        if self.dry_run {
            return Ok((messages, calls.len() as u64));
        }
        self.finish(summary, &calls, last_call, fingerprint).await?;
        Ok((messages, calls.len() as u64))
    }

    /// In one transaction: the calls past the last one held, the records and pins as they are now,
    /// which messages a record hides now, and last the fingerprint (the session is done).
    async fn finish(
        &mut self,
        summary: &SessionSummary,
        calls: &[ModelCallRecord],
        last_call: i64,
        fingerprint: &str,
    ) -> Result<()> {
        let id = &summary.id;
        let records = self.store.compactions(id)?;
        let pins = self.store.pins(id)?;
        let hidden = self.store.hiding_records(id)?;
        let session_row = Value::Object(self.store.session_row(id)?);
        let others = self.store.other_rows(id)?;
        let rows: Vec<CallRow> = calls.iter().map(|c| CallRow::of(c, self.forensics)).collect();
        let (redaction, found) = (self.redaction, &mut *self.found);
        let archive = &mut *self.archive;
        let at =
            At { machine: archive.machine.clone(), session: id.as_str().to_string(), archive: archive.name.clone() };
        let tx = archive.client.transaction().await.map_err(|e| at.fail(e))?;
        CallRow::insert_all(&rows, &tx, &at).await?;
        replace_records(&tx, &at, &records, &pins, hidden, (redaction, found)).await?;
        // The session whole, as its home keeps it (rows redacted like everything else), and its
        // line in the library with what its calls cost (summed here, in picodollars).
        let session_row = redaction.json(session_row, "session", found);
        let line = redaction.json(serde_json::to_value(summary).unwrap_or(Value::Null), "session", found);
        tx.execute(
            "UPDATE sessions SET summary = $3::jsonb || jsonb_build_object('costUsd',
                 (SELECT round(sum(cost_pico)::numeric / 1000000000000, 6) FROM calls WHERE machine = $1 AND session_id = $2),
                 'unpricedCalls', (SELECT count(*) FROM calls WHERE machine = $1 AND session_id = $2 AND cost_pico IS NULL))
             WHERE machine = $1 AND id = $2",
            &[&at.machine, &at.session, &line],
        )
        .await
        .map_err(|e| at.fail(e))?;
        tx.execute(
            "UPDATE sessions SET row = $3 WHERE machine = $1 AND id = $2",
            &[&at.machine, &at.session, &session_row],
        )
        .await
        .map_err(|e| at.fail(e))?;
        tx.execute("DELETE FROM session_rows WHERE machine = $1 AND session_id = $2", &[&at.machine, &at.session])
            .await
            .map_err(|e| at.fail(e))?;
        // In one statement: a session can keep thousands of such rows.
        let (mut tables, mut ns, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for (n, (table, row)) in others.into_iter().enumerate() {
            values.push(redaction.json(Value::Object(row), &table, found));
            tables.push(table);
            ns.push(n as i64);
        }
        tx.execute(
            "INSERT INTO session_rows (machine, session_id, tbl, n, row)
             SELECT $1, $2, * FROM UNNEST($3::text[], $4::bigint[], $5::jsonb[])",
            &[&at.machine, &at.session, &tables, &ns, &values],
        )
        .await
        .map_err(|e| at.fail(e))?;
        let last_call = calls.iter().map(|c| c.id).max().unwrap_or(last_call);
        tx.execute(
            "UPDATE sessions SET fingerprint = $3, pushed_call = $4, calls = (SELECT count(*) FROM calls
                 WHERE machine = $1 AND session_id = $2), pushed_at = now() WHERE machine = $1 AND id = $2",
            &[&at.machine, &at.session, &fingerprint, &last_call],
        )
        .await
        .map_err(|e| at.fail(e))?;
        tx.commit().await.map_err(|e| at.fail(e))
    }

    /// The session's row (title and figures as they are now), created or brought up to date.
    async fn upsert_session(&mut self, summary: &SessionSummary, session: &Session) -> Result<()> {
        let title = self.redaction.text(&summary.title, "title", self.found);
        let project = self.redaction.text(&summary.project, "project", self.found);
        let agent = summary.source.map_or("alisio", |s| s.as_str());
        let (forked_from, forked_at) = match &session.forked_from {
            Some(f) => (Some(f.session.clone()), Some(f.seq)),
            None => (None, None),
        };
        let messages = (summary.live_messages + summary.compacted_messages) as i64;
        let archive = &*self.archive;
        archive
            .client
            .execute(
                "INSERT INTO sessions (machine, id, user_name, title, agent, project, started_at, last_active, parent,
                                       forked_from, forked_at_seq, messages)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                 ON CONFLICT (machine, id) DO UPDATE SET user_name = EXCLUDED.user_name, title = EXCLUDED.title,
                     project = EXCLUDED.project, last_active = EXCLUDED.last_active, parent = EXCLUDED.parent,
                     messages = EXCLUDED.messages",
                &[
                    &archive.machine,
                    &summary.id.as_str(),
                    &archive.user,
                    &title,
                    &agent,
                    &project,
                    &summary.created_at,
                    &summary.last_activity,
                    &summary.parent,
                    &forked_from,
                    &forked_at,
                    &messages,
                ],
            )
            .await
            .map_err(|e| archive.fail(e))?;
        Ok(())
    }

    /// One page of message rows, committed with the seq it reaches.
    async fn messages(&mut self, id: &SessionId, page: Vec<Row>, last: i64) -> Result<()> {
        let mut cols = Columns::default();
        for row in page {
            let seq = row.get("seq").and_then(Value::as_i64).unwrap_or(0);
            let row = self.redaction.json(Value::Object(row), &format!("message {seq}"), self.found);
            let text = |k: &str| row.get(k).and_then(Value::as_str).map(str::to_string);
            cols.seq.push(seq);
            cols.role.push(text("role").unwrap_or_default());
            cols.content.push(text("content").unwrap_or_default());
            let calls = text("tool_calls").and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(json!([]));
            cols.tool_calls.push(calls);
            cols.tool_call_id.push(text("tool_call_id"));
            cols.summary.push(row.get("summary").and_then(Value::as_i64).unwrap_or(0) != 0);
            cols.compacted_by.push(row.get("compacted_by").and_then(Value::as_i64));
            cols.created_at.push(text("created_at").unwrap_or_default());
            // The text is kept once, in `content`; the copy of the row goes without it.
            let mut row = row;
            if let Some(map) = row.as_object_mut() {
                map.remove("content");
            }
            cols.row.push(row);
        }
        if self.dry_run {
            return Ok(());
        }
        let archive = &mut *self.archive;
        let name = archive.name.clone();
        let f = |e| fail(&name, e);
        let (machine, sid) = (archive.machine.clone(), id.as_str().to_string());
        let tx = archive.client.transaction().await.map_err(f)?;
        let params: [&(dyn ToSql + Sync); 11] = [
            &machine,
            &sid,
            &cols.seq,
            &cols.role,
            &cols.content,
            &cols.tool_calls,
            &cols.tool_call_id,
            &cols.summary,
            &cols.compacted_by,
            &cols.created_at,
            &cols.row,
        ];
        tx.execute(
            "INSERT INTO messages (machine, session_id, seq, role, content, tool_calls, tool_call_id, summary, compacted_by, created_at, row)
             SELECT $1, $2, * FROM UNNEST($3::bigint[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::boolean[],
                                          $9::bigint[], $10::text[], $11::jsonb[])
             ON CONFLICT (machine, session_id, seq) DO NOTHING",
            &params,
        )
        .await
        .map_err(f)?;
        tx.execute("UPDATE sessions SET pushed_seq = $3 WHERE machine = $1 AND id = $2", &[&machine, &sid, &last])
            .await
            .map_err(f)?;
        tx.commit().await.map_err(f)?;
        Ok(())
    }
}

/// The session's records and pins as they are now, and which messages each record hides now (a
/// compaction undone shows them again).
async fn replace_records(
    tx: &tokio_postgres::Transaction<'_>,
    at: &At,
    records: &[alisio_engine::store::compactions::CompactionRecord],
    pins: &[alisio_engine::store::pins::Pin],
    hidden: Vec<(i64, Option<i64>)>,
    (redaction, found): (&Redaction, &mut Redactions),
) -> Result<()> {
    for record in records {
        let checkpoint = record.checkpoint().map(|c| c.checkpoint.clone()).unwrap_or(json!({}));
        let checkpoint = redaction.json(checkpoint, &format!("compaction {}", record.id), found);
        tx.execute(
                "INSERT INTO compactions (machine, session_id, id, kind, reason, status, checkpoint, before_chars, after_chars, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (machine, session_id, id) DO UPDATE SET status = EXCLUDED.status, checkpoint = EXCLUDED.checkpoint",
                &[
                    &at.machine,
                    &at.session,
                    &record.id,
                    &record.kind().as_str(),
                    &record.reason.as_str(),
                    &record.status.as_str(),
                    &checkpoint,
                    &(record.before_chars as i64),
                    &(record.after_chars as i64),
                    &record.created_at,
                ],
            )
            .await
            .map_err(|e| at.fail(e))?;
    }
    tx.execute("DELETE FROM pins WHERE machine = $1 AND session_id = $2", &[&at.machine, &at.session])
        .await
        .map_err(|e| at.fail(e))?;
    for pin in pins {
        let text = redaction.text(&pin.text, &format!("pin {}", pin.id), found);
        tx.execute(
            "INSERT INTO pins (machine, session_id, id, seq, text) VALUES ($1, $2, $3, $4, $5)",
            &[&at.machine, &at.session, &pin.id, &pin.seq, &text],
        )
        .await
        .map_err(|e| at.fail(e))?;
    }
    // Which messages a record hides now (a compaction undone shows them again).
    let (seqs, by): (Vec<i64>, Vec<Option<i64>>) = hidden.into_iter().unzip();
    tx.execute(
        "UPDATE messages m SET compacted_by = u.by FROM UNNEST($3::bigint[], $4::bigint[]) AS u(seq, by)
             WHERE m.machine = $1 AND m.session_id = $2 AND m.seq = u.seq AND m.compacted_by IS DISTINCT FROM u.by",
        &[&at.machine, &at.session, &seqs, &by],
    )
    .await
    .map_err(|e| at.fail(e))?;
    Ok(())
}

/// Where rows go: the archive (for errors), the machine and the session.
struct At {
    archive: String,
    machine: String,
    session: String,
}

impl At {
    fn fail(&self, e: tokio_postgres::Error) -> ArchiveError {
        fail(&self.archive, e)
    }
}

/// One call as the archive keeps it: its tokens, and its cost and savings in picodollars at the
/// prices in force on its date (none when its model has no price).
struct CallRow {
    id: i64,
    purpose: String,
    api: String,
    model: String,
    started_at: String,
    tokens: [i64; 4],
    cost: Option<i64>,
    savings: Option<i64>,
}

impl CallRow {
    fn of(call: &ModelCallRecord, forensics: &Forensics) -> CallRow {
        let priced = forensics.price(call);
        let pico = |m: alisio_engine::cost::Money| i64::try_from(m.0).ok();
        let n = |v: Option<u64>| v.unwrap_or(0) as i64;
        CallRow {
            id: call.id,
            purpose: call.purpose.as_str().to_string(),
            api: call.api.to_string(),
            model: call.model.clone(),
            started_at: call.started_at.clone(),
            tokens: [
                n(call.prompt_tokens),
                n(call.cached_tokens),
                n(call.cache_write_tokens),
                n(call.completion_tokens),
            ],
            cost: priced.as_ref().and_then(|p| pico(p.cost)),
            savings: priced.as_ref().and_then(|p| pico(p.savings)),
        }
    }

    /// Every row in one statement (arrays unnested); a call already held is left as it is.
    async fn insert_all(rows: &[CallRow], tx: &tokio_postgres::Transaction<'_>, at: &At) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let column = |f: fn(&CallRow) -> i64| rows.iter().map(f).collect::<Vec<i64>>();
        let text = |f: fn(&CallRow) -> &String| rows.iter().map(|r| f(r).clone()).collect::<Vec<String>>();
        let money = |f: fn(&CallRow) -> Option<i64>| rows.iter().map(f).collect::<Vec<Option<i64>>>();
        let (ids, purposes, apis, models, started) =
            (column(|r| r.id), text(|r| &r.purpose), text(|r| &r.api), text(|r| &r.model), text(|r| &r.started_at));
        let tokens: Vec<Vec<i64>> = (0..4).map(|i| rows.iter().map(|r| r.tokens[i]).collect()).collect();
        let (costs, savings) = (money(|r| r.cost), money(|r| r.savings));
        tx.execute(
            "INSERT INTO calls (machine, session_id, id, purpose, api, model, started_at, prompt_tokens, cached_tokens,
                                cache_write_tokens, completion_tokens, cost_pico, savings_pico)
             SELECT $1, $2, * FROM UNNEST($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
                                          $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[])
             ON CONFLICT DO NOTHING",
            &[
                &at.machine,
                &at.session,
                &ids,
                &purposes,
                &apis,
                &models,
                &started,
                &tokens[0],
                &tokens[1],
                &tokens[2],
                &tokens[3],
                &costs,
                &savings,
            ],
        )
        .await
        .map_err(|e| at.fail(e))?;
        Ok(())
    }
}

#[derive(Default)]
struct Columns {
    seq: Vec<i64>,
    role: Vec<String>,
    content: Vec<String>,
    tool_calls: Vec<Value>,
    tool_call_id: Vec<Option<String>>,
    summary: Vec<bool>,
    compacted_by: Vec<Option<i64>>,
    created_at: Vec<String>,
    row: Vec<Value>,
}

pub(crate) fn fail(archive: &str, e: tokio_postgres::Error) -> ArchiveError {
    let message = e.as_db_error().map_or_else(|| e.to_string(), |db| db.message().to_string());
    ArchiveError::Postgres { archive: archive.to_string(), message }
}
