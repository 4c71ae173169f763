//! `alisio run`: one user turn to its answer, its events printed as they happen.

use alisio_api::turns::{self, RunTurn};
use alisio_api::{ApiError, ApiResult, App};

use crate::cli::output::Output;

pub async fn turn(app: &App, _out: Output, session: Option<String>, prompt: Vec<String>) -> ApiResult<()> {
    let mut prompt = prompt.join(" ");
    if prompt == "-" {
        prompt = std::io::read_to_string(std::io::stdin())
            .map_err(|e| ApiError::failed(format!("cannot read the prompt from stdin: {e}")))?;
    }
    turns::run(app, RunTurn { session, prompt, workspace: None }).await.map(|_| ())
}
