//! `score`, `scoreAsync` and `validate`.

use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, ScopedTask};
use napi_derive::napi;
use undertone_core::sdk::{self, DeploymentId, InputFormat};

use crate::error::Failure;
use crate::input::{Input, JsInput, given};
use crate::js;

/// How a list of events or a request is scored.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct ScoreOptions {
    /// The deployment of a list of events (required for one); for a request, fills in
    /// a missing `deployment_id` or must equal it.
    #[napi(ts_type = "string | null")]
    pub deployment_id: Option<Option<String>>,
    /// Overrides the request's `pipeline`; absent: the request's own, else `auto`.
    #[napi(ts_type = "'auto' | 'support' | 'reviews' | null")]
    pub pipeline: Option<Option<String>>,
    /// `full` (default): every conversation and turn; `condensed`: the summary.
    #[napi(ts_type = "'full' | 'condensed' | null")]
    pub view: Option<Option<String>>,
    /// Layout of file bytes: `auto` (default), `json` or `jsonl`.
    #[napi(ts_type = "'auto' | 'json' | 'jsonl' | null")]
    pub format: Option<Option<String>>,
}

/// How an input is read by `validate`.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct ValidateOptions {
    /// The deployment of a list of events; see `ScoreOptions.deploymentId`.
    #[napi(ts_type = "string | null")]
    pub deployment_id: Option<Option<String>>,
    /// Layout of file bytes: `auto` (default), `json` or `jsonl`.
    #[napi(ts_type = "'auto' | 'json' | 'jsonl' | null")]
    pub format: Option<Option<String>>,
}

/// What JavaScript calls the deployment id option, for error paths.
pub const DEPLOYMENT_ID: &str = "deploymentId";

fn run_score(input: &Input, options: &ScoreOptions) -> Result<String, Failure> {
    let format = InputFormat::option(given(&options.format))?;
    let id = DeploymentId {
        value: given(&options.deployment_id),
        name: DEPLOYMENT_ID,
    };
    let options = sdk::ScoreOptions::parse(id, given(&options.pipeline), given(&options.view))?;
    let bytes = input.load()?;
    Ok(sdk::score_json(&input.source(&bytes, format), &options)?)
}

/// Core's JSON result as a JavaScript value, or the failure as a JavaScript error.
pub fn to_js(env: &Env, result: Result<String, Failure>) -> napi::Result<Unknown<'_>> {
    match result {
        Ok(json) => js::parse(env, json),
        Err(failure) => Err(failure.into_js(env)),
    }
}

/// Scores every human turn of `input`: `{pipeline, intelligence}`, or the condensed view.
#[napi(
    ts_args_type = "input: Input, options?: ScoreOptions | null",
    ts_return_type = "ScoreOutput"
)]
pub fn score<'env>(
    env: &'env Env,
    input: JsInput<'_>,
    options: Option<ScoreOptions>,
) -> napi::Result<Unknown<'env>> {
    let input = Input::from_js(env, input)?;
    to_js(env, run_score(&input, &options.unwrap_or_default()))
}

/// A `score` call run on the libuv thread pool.
pub struct ScoreTask {
    input: Input,
    options: ScoreOptions,
}

impl<'env> ScopedTask<'env> for ScoreTask {
    type Output = Result<String, Failure>;
    type JsValue = Unknown<'env>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(run_score(&self.input, &self.options))
    }

    fn resolve(&mut self, env: &'env Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        to_js(env, output)
    }
}

/// `score` off the main thread: a Promise of the same result.
#[napi(
    ts_args_type = "input: Input, options?: ScoreOptions | null",
    ts_return_type = "Promise<ScoreOutput>"
)]
pub fn score_async(
    env: &Env,
    input: JsInput<'_>,
    options: Option<ScoreOptions>,
) -> napi::Result<AsyncTask<ScoreTask>> {
    Ok(AsyncTask::new(ScoreTask {
        input: Input::from_js(env, input)?,
        options: options.unwrap_or_default(),
    }))
}

/// The request `input` reads as, validated: what scoring would see.
#[napi(
    ts_args_type = "input: Input, options?: ValidateOptions | null",
    ts_return_type = "IngestRequest"
)]
pub fn validate<'env>(
    env: &'env Env,
    input: JsInput<'_>,
    options: Option<ValidateOptions>,
) -> napi::Result<Unknown<'env>> {
    let input = Input::from_js(env, input)?;
    let options = options.unwrap_or_default();
    let result = InputFormat::option(given(&options.format))
        .map_err(Failure::from)
        .and_then(|format| {
            let bytes = input.load()?;
            let id = DeploymentId {
                value: given(&options.deployment_id),
                name: DEPLOYMENT_ID,
            };
            Ok(sdk::validate_json(&input.source(&bytes, format), id)?)
        });
    to_js(env, result)
}
