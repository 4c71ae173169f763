//! Tool output capture: bounded in memory, lossy for non-UTF-8, honest about what it dropped.

/// Stored copy of one tool output is cut past this many bytes; the rest is counted, not kept.
pub const MAX_OUTPUT_BYTES: usize = 10 * 1024 * 1024;

/// Bytes kept up to a cap, with a count of the bytes past it.
#[derive(Debug, Default)]
pub struct Capture {
    pub bytes: Vec<u8>,
    pub dropped: u64,
}

impl Capture {
    pub fn push(&mut self, chunk: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.bytes.len());
        let take = room.min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..take]);
        self.dropped += (chunk.len() - take) as u64;
    }

    /// Decodes the bytes (lossily when they are not UTF-8) and returns `(text, lossy)`.
    pub fn into_text(self) -> (String, bool, u64) {
        let dropped = self.dropped;
        match String::from_utf8(self.bytes) {
            Ok(text) => (text, false, dropped),
            Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true, dropped),
        }
    }
}

/// Suffix notes appended to an output so the model (and the reader) know what happened to it.
pub fn annotate(mut text: String, lossy: bool, dropped: u64) -> String {
    if lossy {
        text.push_str("\n[output was not valid UTF-8; invalid bytes are shown as U+FFFD]");
    }
    if dropped > 0 {
        text.push_str(&format!(
            "\n[{dropped} more bytes were dropped: output exceeded the {} MiB storage cap]",
            MAX_OUTPUT_BYTES / (1024 * 1024)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_caps_and_decodes_lossily() {
        let mut c = Capture::default();
        c.push(b"ab\xffcd", 4);
        c.push(b"ef", 4);
        let (text, lossy, dropped) = c.into_text();
        assert_eq!(text, "ab\u{fffd}c");
        assert!(lossy);
        assert_eq!(dropped, 3);
        let note = annotate(text, lossy, dropped);
        assert!(note.contains("not valid UTF-8") && note.contains("3 more bytes"));
    }
}
