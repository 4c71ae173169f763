//! Who may read an archive through `alisio serve`: tokens, kept in the archive as SHA-256 hashes
//! (the token itself is shown once, when it is made, and never stored), each with a label, and
//! revoked by id.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{Archive, Result};

/// A token as listed: never the token itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    pub id: i64,
    pub label: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

/// A token made now: its id and the token, to be shown once.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewToken {
    pub id: i64,
    pub label: String,
    pub token: String,
}

fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A new random token (two UUID v4s: 244 random bits).
fn fresh() -> String {
    format!("alisio_{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

pub async fn create(archive: &Archive, label: &str) -> Result<NewToken> {
    let token = fresh();
    let row = archive
        .client
        .query_one("INSERT INTO serve_tokens (label, hash) VALUES ($1, $2) RETURNING id", &[&label, &hash(&token)])
        .await
        .map_err(|e| archive.fail(e))?;
    Ok(NewToken { id: row.get(0), label: label.to_string(), token })
}

pub async fn list(archive: &Archive) -> Result<Vec<TokenInfo>> {
    let rows = archive
        .client
        .query(
            "SELECT id, label, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
                    to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM serve_tokens ORDER BY id",
            &[],
        )
        .await
        .map_err(|e| archive.fail(e))?;
    Ok(rows
        .iter()
        .map(|r| TokenInfo { id: r.get(0), label: r.get(1), created_at: r.get(2), revoked_at: r.get(3) })
        .collect())
}

/// Revokes token `id`; false when there is no such token (or it was revoked already).
pub async fn revoke(archive: &Archive, id: i64) -> Result<bool> {
    let n = archive
        .client
        .execute("UPDATE serve_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", &[&id])
        .await
        .map_err(|e| archive.fail(e))?;
    Ok(n == 1)
}

/// Whether `token` is one made here and not revoked.
pub async fn valid(archive: &Archive, token: &str) -> Result<bool> {
    let row = archive
        .client
        .query_one("SELECT count(*) FROM serve_tokens WHERE hash = $1 AND revoked_at IS NULL", &[&hash(token)])
        .await
        .map_err(|e| archive.fail(e))?;
    Ok(row.get::<_, i64>(0) == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_stored_as_hashes() {
        let (a, b) = (fresh(), fresh());
        assert_ne!(a, b);
        assert!(a.starts_with("alisio_") && a.len() == 7 + 64);
        assert_eq!(hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
