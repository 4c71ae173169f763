//! Choosing where a compaction cuts (docs/ARCHITECTURE.md, "Where each rule lives"). Pure functions over message shapes: keep
//! `keepTurns` recent turns (at least the last), cut inside one long turn at its last safe boundary
//! between calls, and never separate a tool call from its results.

use std::collections::HashSet;

use crate::transcript::Role;

/// What boundary selection needs to know about a live message (no contents).
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub role: Role,
    /// Checkpoints and injected context: never a turn start, never counted as history to summarize.
    pub summary: bool,
    /// Call ids requested by an assistant message.
    pub calls: Vec<String>,
    /// The call a tool result answers.
    pub answers: Option<String>,
}

impl Shape {
    pub fn user() -> Self {
        Shape { role: Role::User, summary: false, calls: Vec::new(), answers: None }
    }
    pub fn assistant(calls: &[&str]) -> Self {
        Shape {
            role: Role::Assistant,
            summary: false,
            calls: calls.iter().map(|c| c.to_string()).collect(),
            answers: None,
        }
    }
    pub fn tool(answers: &str) -> Self {
        Shape { role: Role::Tool, summary: false, calls: Vec::new(), answers: Some(answers.to_string()) }
    }
    pub fn checkpoint() -> Self {
        Shape { summary: true, ..Shape::user() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Nothing before the boundary but checkpoints (or nothing at all).
    NotEnoughHistory,
    /// History exists, but no cut keeps every call with its results.
    NoSafeBoundary,
}

impl Skip {
    pub fn message(self) -> &'static str {
        match self {
            Skip::NotEnoughHistory => "not enough history to compact",
            Skip::NoSafeBoundary => "there is no safe boundary to summarize",
        }
    }
}

/// `safe[p]` is true when every call requested in `messages[..p]` is answered in `messages[..p]`.
pub fn safe_positions(messages: &[Shape]) -> Vec<bool> {
    let mut open: HashSet<&str> = HashSet::new();
    let mut safe = Vec::with_capacity(messages.len() + 1);
    safe.push(true);
    for message in messages {
        for call in &message.calls {
            open.insert(call);
        }
        if let Some(id) = &message.answers {
            open.remove(id.as_str());
        }
        safe.push(open.is_empty());
    }
    safe
}

/// Index of the first kept message: everything before it is summarized.
pub fn select_safe_boundary(messages: &[Shape], keep_turns: u32) -> Result<usize, Skip> {
    let safe = safe_positions(messages);
    let has_history = |end: usize| messages[..end].iter().any(|m| !m.summary);
    let turn_starts: Vec<usize> =
        messages.iter().enumerate().filter(|(_, m)| m.role == Role::User && !m.summary).map(|(i, _)| i).collect();
    let Some(&last_turn) = turn_starts.last() else {
        return Err(if has_history(messages.len()) { Skip::NoSafeBoundary } else { Skip::NotEnoughHistory });
    };

    // Whole turns: keep `keepTurns` (at least the last one) when there is an older turn to summarize.
    if keep_turns >= 1 && turn_starts.len() >= 2 {
        let keep = (keep_turns as usize).min(turn_starts.len() - 1);
        let cut = turn_starts[turn_starts.len() - keep];
        if safe[cut] && has_history(cut) {
            return Ok(cut);
        }
    }

    // Inside the last turn: the last position before an assistant message that follows answered calls.
    let in_turn = (last_turn + 1..messages.len())
        .rev()
        .find(|&p| safe[p] && messages[p].role == Role::Assistant && messages[p - 1].role == Role::Tool);
    if let Some(cut) = in_turn {
        return Ok(cut);
    }
    // keepTurns = 0 with no boundary inside the last turn: keep the whole last turn.
    if keep_turns == 0 && safe[last_turn] && has_history(last_turn) {
        return Ok(last_turn);
    }
    Err(if has_history(messages.len()) { Skip::NoSafeBoundary } else { Skip::NotEnoughHistory })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(calls: usize) -> Vec<Shape> {
        let mut turn = vec![Shape::user()];
        for i in 0..calls {
            let id = format!("c{i}-{}", calls);
            turn.push(Shape::assistant(&[&id]));
            turn.push(Shape::tool(&id));
        }
        turn.push(Shape::assistant(&[]));
        turn
    }

    fn turns(n: usize) -> Vec<Shape> {
        (0..n).flat_map(|_| turn(1)).collect()
    }

    #[test]
    fn table() {
        // A turn in progress: parallel calls a, b, c answered, then d answered; the model is next.
        let mut parallel = vec![Shape::user(), Shape::assistant(&["a", "b", "c"]), Shape::tool("a"), Shape::tool("b")];
        parallel.extend([Shape::tool("c"), Shape::assistant(&["d"]), Shape::tool("d")]);
        let in_progress = vec![Shape::user(), Shape::assistant(&["x"]), Shape::tool("x")];
        let mut after_checkpoint = vec![Shape::checkpoint()];
        after_checkpoint.extend(turn(0));
        let mut checkpoint_two_turns = vec![Shape::checkpoint()];
        checkpoint_two_turns.extend(turns(2));
        let long = turn(200);
        type Case = (&'static str, Vec<Shape>, u32, Result<usize, Skip>);
        let cases: Vec<Case> = vec![
            ("empty", vec![], 2, Err(Skip::NotEnoughHistory)),
            ("0 turns, only a checkpoint", vec![Shape::checkpoint()], 2, Err(Skip::NotEnoughHistory)),
            ("1 turn without calls", turn(0), 2, Err(Skip::NoSafeBoundary)),
            ("1 turn whose only safe boundary is its start", in_progress, 2, Err(Skip::NoSafeBoundary)),
            ("1 finished turn keeps its final answer", turn(1), 2, Ok(3)),
            ("2 turns keep 2 keeps the last", turns(2), 2, Ok(4)),
            ("2 turns keep 1", turns(2), 1, Ok(4)),
            ("20 turns keep 2", turns(20), 2, Ok(18 * 4)),
            ("20 turns keep 20 keeps all but the first", turns(20), 20, Ok(4)),
            ("20 turns keep 0 cuts inside the last turn", turns(20), 0, Ok(19 * 4 + 3)),
            ("one turn of 200 calls", long.clone(), 2, Ok(long.len() - 1)),
            ("parallel calls stay with their results", parallel, 2, Ok(5)),
            ("checkpoint then one short turn", after_checkpoint, 2, Err(Skip::NoSafeBoundary)),
            ("checkpoint then two turns", checkpoint_two_turns, 2, Ok(5)),
        ];
        for (name, messages, keep, want) in cases {
            assert_eq!(select_safe_boundary(&messages, keep), want, "{name}");
            if let Ok(cut) = want {
                assert!(safe_positions(&messages)[cut], "{name}: cut must be safe");
            }
        }
    }

    #[test]
    fn a_turn_boundary_inside_an_open_call_is_not_used() {
        // A call answered only after the next user message makes that turn start unsafe; the cut
        // falls back to the safe position before the final answer.
        let messages =
            vec![Shape::user(), Shape::assistant(&["x"]), Shape::user(), Shape::tool("x"), Shape::assistant(&[])];
        assert!(!safe_positions(&messages)[2]);
        assert_eq!(select_safe_boundary(&messages, 1), Ok(4));
        let unanswered = vec![Shape::user(), Shape::assistant(&["x"]), Shape::user(), Shape::assistant(&[])];
        assert_eq!(select_safe_boundary(&unanswered, 1), Err(Skip::NoSafeBoundary));
    }
}
