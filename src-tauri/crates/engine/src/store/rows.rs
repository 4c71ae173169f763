//! A session's rows as JSON, table by table, and back: what a team's archive keeps of a session so
//! that another home can hold it whole (`alisio serve` reads an archive through such a copy).
//! Every table that keeps rows per session takes part, as the schema says (`events` and the
//! derived `usage_daily` aside); a row's columns are its own, so a copy made by another release
//! keeps the columns both know.

use base64::Engine as _;
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{params_from_iter, Connection};
use serde_json::{json, Map, Value};

use super::{SessionId, Store};
use crate::error::{Error, Result};

/// Tables left out of a copy: the event log (what the window streamed, not what was stored) and
/// the daily sums (derived from the ledger).
const LEFT_OUT: &[&str] = &["events", "usage_daily"];

/// One row of one table.
pub type Row = Map<String, Value>;

/// The tables that keep rows per session (besides `sessions`), as the schema says now.
fn session_tables(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p
         WHERE m.type = 'table' AND m.name != 'sessions' AND p.name = 'session_id' ORDER BY m.name",
    )?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let names: Vec<String> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(names.into_iter().filter(|n| !LEFT_OUT.contains(&n.as_str()) && !n.ends_with("_fts")).collect())
}

fn columns(conn: &Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => json!(n),
        ValueRef::Real(x) => json!(x),
        ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => json!({"$blob": base64::engine::general_purpose::STANDARD.encode(b)}),
    }
}

fn to_sql(value: &Value) -> Sql {
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => n.as_i64().map(Sql::Integer).unwrap_or_else(|| Sql::Real(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => Sql::Text(s.clone()),
        Value::Object(o) if o.len() == 1 && o.contains_key("$blob") => {
            let text = o["$blob"].as_str().unwrap_or_default();
            Sql::Blob(base64::engine::general_purpose::STANDARD.decode(text).unwrap_or_default())
        }
        other => Sql::Text(other.to_string()),
    }
}

fn rows_where(conn: &Connection, sql: &str, args: &[Sql]) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare(sql)?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut map = Map::new();
        for (i, name) in names.iter().enumerate() {
            map.insert(name.clone(), to_json(row.get_ref(i)?));
        }
        out.push(map);
    }
    Ok(out)
}

impl Store {
    /// The session's own row.
    pub fn session_row(&self, session: &SessionId) -> Result<Row> {
        self.read(|conn| {
            let rows = rows_where(conn, "SELECT * FROM sessions WHERE id = ?1", &[Sql::Text(session.to_string())])?;
            rows.into_iter().next().ok_or_else(|| Error::SessionNotFound(session.to_string()))
        })
    }

    /// Up to `limit` of the session's message rows with a seq above `after`, by seq.
    pub fn message_rows(&self, session: &SessionId, after: i64, limit: usize) -> Result<Vec<Row>> {
        self.read(|conn| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let args = [Sql::Text(session.to_string()), Sql::Integer(after), Sql::Integer(limit)];
            rows_where(conn, "SELECT * FROM messages WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3", &args)
        })
    }

    /// Every row of the session in every other table that keeps rows per session: `(table, row)`.
    pub fn other_rows(&self, session: &SessionId) -> Result<Vec<(String, Row)>> {
        self.read(|conn| {
            let mut out = Vec::new();
            for table in session_tables(conn)?.into_iter().filter(|t| t != "messages") {
                let sql = format!("SELECT * FROM \"{table}\" WHERE session_id = ?1");
                for row in rows_where(conn, &sql, &[Sql::Text(session.to_string())])? {
                    out.push((table.clone(), row));
                }
            }
            Ok(out)
        })
    }

    /// Replaces everything stored of the session with `session` (its row), `messages` and `others`
    /// (`(table, row)`), in one transaction; columns this schema lacks are left out, tables it
    /// lacks skipped. The messages are indexed for search.
    pub fn restore_rows(&self, session: &str, row: &Row, messages: &[Row], others: &[(String, Row)]) -> Result<()> {
        self.write(|tx| {
            let conn = tx.conn();
            conn.execute_batch("PRAGMA defer_foreign_keys = ON")?;
            let tables = session_tables(conn)?;
            // The index first: it is found through the messages about to go.
            conn.execute(
                "DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE session_id = ?1)",
                [session],
            )?;
            for table in &tables {
                conn.execute(&format!("DELETE FROM \"{table}\" WHERE session_id = ?1"), [session])?;
            }
            conn.execute("DELETE FROM sessions WHERE id = ?1", [session])?;
            insert(conn, "sessions", row)?;
            for message in messages {
                insert(conn, "messages", message)?;
            }
            let indexed: Vec<(i64, String)> = messages
                .iter()
                .filter_map(|m| Some((m.get("id")?.as_i64()?, m.get("content")?.as_str()?.to_string())))
                .collect();
            super::imported::index_messages(tx, &indexed)?;
            for (table, row) in others.iter().filter(|(t, _)| tables.contains(t)) {
                insert(conn, table, row)?;
            }
            Ok(())
        })
    }
}

fn insert(conn: &Connection, table: &str, row: &Row) -> Result<()> {
    let known = columns(conn, table)?;
    let names: Vec<&String> = known.iter().filter(|c| row.contains_key(c.as_str())).collect();
    let values: Vec<Sql> = names.iter().map(|c| to_sql(&row[c.as_str()])).collect();
    let list = names.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let marks = (1..=names.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
    conn.execute(&format!("INSERT INTO \"{table}\" ({list}) VALUES ({marks})"), params_from_iter(values.iter()))?;
    Ok(())
}
