-- The stored view pages through every message (compacted ones included) in transcript order.
CREATE INDEX messages_transcript ON messages (session_id, anchor, seq);
