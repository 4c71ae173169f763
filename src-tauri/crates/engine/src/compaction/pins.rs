//! The pinned block: every request after a checkpoint carries, right after it, the session's
//! pins and the workspace's rules files (`compaction.pinFiles`) verbatim, under `## Pinned`. It is
//! built at each compaction — rules files are read again then, so an edit is picked up — and stored
//! as context the compaction added, which reductions never cut and the next compaction replaces.

use std::path::Path;

use crate::context::Context;
use crate::error::Result;
pub use crate::fidelity::{PinId, PinKept};

/// The heading the block starts with.
pub const HEADING: &str = "## Pinned";

/// A rules file larger than this is left out (and logged): a pin is carried in every request.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The block and the pins it was built from.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedBlock {
    pub text: String,
    pins: Vec<(PinId, String)>,
}

impl PinnedBlock {
    /// Each pin, kept when `carried` (the text the request carries after the checkpoint) holds it
    /// verbatim.
    pub fn kept_in(&self, carried: &str) -> Vec<PinKept> {
        self.pins.iter().map(|(id, text)| PinKept { id: id.clone(), kept: carried.contains(text.as_str()) }).collect()
    }

    /// Each pin of the block as stored after the checkpoint (`fidelity.pins`); none without one.
    pub fn kept(block: Option<&PinnedBlock>) -> Vec<PinKept> {
        block.map(|b| b.kept_in(&b.text)).unwrap_or_default()
    }

    pub fn chars(&self) -> u64 {
        self.text.chars().count() as u64
    }

    /// The text of each pin: stored pins and rules files alike.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.pins.iter().map(|(_, text)| text.as_str())
    }
}

/// The session's pinned block now, or `None` when nothing is pinned.
pub fn block(ctx: &Context<'_>) -> Result<Option<PinnedBlock>> {
    let mut pins: Vec<(PinId, String)> =
        ctx.store.pins(ctx.session_id())?.into_iter().map(|p| (PinId::Stored(p.id), p.text)).collect();
    for name in &ctx.config.compaction.pin_files {
        if let Some(mut text) = rules_file(Path::new(&ctx.session.workspace), name) {
            // Carried in every request and stored with the session: never a key.
            ctx.secrets.redact_in_place(&mut text);
            pins.push((PinId::File(name.clone()), text));
        }
    }
    Ok(render(pins))
}

fn render(pins: Vec<(PinId, String)>) -> Option<PinnedBlock> {
    if pins.is_empty() {
        return None;
    }
    let mut text = format!("{HEADING}\n\nKept verbatim from before the summary; these still apply.\n");
    for (id, pin) in &pins {
        match id {
            PinId::Stored(_) => text.push_str(&format!("\n{pin}\n")),
            PinId::File(name) => text.push_str(&format!("\n### {name}\n\n{pin}\n")),
        }
    }
    Some(PinnedBlock { text, pins })
}

/// A rules file of the workspace, if it is a regular file inside it, not too large and text.
fn rules_file(workspace: &Path, name: &str) -> Option<String> {
    let relative = Path::new(name);
    if relative.is_absolute() || relative.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
        tracing::warn!("compaction.pinFiles: {name} is not a path inside the workspace; it is not pinned");
        return None;
    }
    let root = workspace.canonicalize().ok()?;
    let path = root.join(relative).canonicalize().ok()?;
    if !path.starts_with(&root) {
        tracing::warn!("compaction.pinFiles: {name} leads out of the workspace; it is not pinned");
        return None;
    }
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() > MAX_FILE_BYTES {
        tracing::warn!("compaction.pinFiles: {name} is {} bytes (over {MAX_FILE_BYTES}); it is not pinned", meta.len());
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_carries_every_pin_verbatim_after_its_heading() {
        let block = render(vec![
            (PinId::Stored(1), "Never touch the vendor/ folder.".into()),
            (PinId::File("AGENTS.md".into()), "Use tabs.\nRun make check.\n".into()),
        ])
        .unwrap();
        assert!(block.text.starts_with(HEADING));
        assert!(block.text.contains("\nNever touch the vendor/ folder.\n"));
        assert!(block.text.contains("### AGENTS.md\n\nUse tabs.\nRun make check.\n"));
        let kept = block.kept_in(&block.text);
        assert!(kept.iter().all(|k| k.kept), "{kept:?}");
        let lost = block.kept_in("## Pinned\n\nUse tabs.");
        assert_eq!(lost.iter().map(|k| k.kept).collect::<Vec<_>>(), [false, false]);
        assert_eq!(render(Vec::new()), None);
    }

    #[test]
    fn rules_files_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(dir.path().join("secret.md"), "outside").unwrap();
        std::fs::write(ws.join("AGENTS.md"), "inside").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.md"), ws.join("LINK.md")).unwrap();
        assert_eq!(rules_file(&ws, "AGENTS.md").as_deref(), Some("inside"));
        assert_eq!(rules_file(&ws, "../secret.md"), None);
        assert_eq!(rules_file(&ws, "LINK.md"), None);
        assert_eq!(rules_file(&ws, "MISSING.md"), None);
        std::fs::write(ws.join("BIG.md"), vec![b'x'; MAX_FILE_BYTES as usize + 1]).unwrap();
        assert_eq!(rules_file(&ws, "BIG.md"), None);
    }
}
