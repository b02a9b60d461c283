//! `drift` and `driftAsync`.

use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, ScopedTask};
use napi_derive::napi;
use undertone_core::sdk::{self, DeploymentId, InputFormat};

use crate::error::Failure;
use crate::input::{Input, JsInput, given};
use crate::score::{DEPLOYMENT_ID, to_js};

/// How two periods are compared.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct DriftOptions {
    /// The question the analysis should address first.
    #[napi(ts_type = "string | null")]
    pub question: Option<Option<String>>,
    /// The deployment of both periods; default: the before period's.
    #[napi(ts_type = "string | null")]
    pub deployment_id: Option<Option<String>>,
    /// Name of the before period; default: the file name without extension, or `before`.
    #[napi(ts_type = "string | null")]
    pub before_label: Option<Option<String>>,
    /// Name of the after period; default: the file name without extension, or `after`.
    #[napi(ts_type = "string | null")]
    pub after_label: Option<Option<String>>,
    /// Layout of file bytes: `auto` (default), `json` or `jsonl`.
    #[napi(ts_type = "'auto' | 'json' | 'jsonl' | null")]
    pub format: Option<Option<String>>,
}

fn run_drift(before: &Input, after: &Input, options: &DriftOptions) -> Result<String, Failure> {
    let format = InputFormat::option(given(&options.format))?;
    let (before_bytes, after_bytes) = (before.load()?, after.load()?);
    let options = sdk::DriftOptions {
        deployment_id: DeploymentId {
            value: given(&options.deployment_id),
            name: DEPLOYMENT_ID,
        },
        question: given(&options.question),
        before_label: given(&options.before_label),
        after_label: given(&options.after_label),
    };
    Ok(sdk::drift_json(
        &before.source(&before_bytes, format),
        &after.source(&after_bytes, format),
        &options,
    )?)
}

/// Scores both periods and tests every dimension for change.
#[napi(
    ts_args_type = "before: Input, after: Input, options?: DriftOptions | null",
    ts_return_type = "DriftResult"
)]
pub fn drift<'env>(
    env: &'env Env,
    before: JsInput<'_>,
    after: JsInput<'_>,
    options: Option<DriftOptions>,
) -> napi::Result<Unknown<'env>> {
    let (before, after) = (Input::from_js(env, before)?, Input::from_js(env, after)?);
    to_js(
        env,
        run_drift(&before, &after, &options.unwrap_or_default()),
    )
}

/// A `drift` call run on the libuv thread pool.
pub struct DriftTask {
    before: Input,
    after: Input,
    options: DriftOptions,
}

impl<'env> ScopedTask<'env> for DriftTask {
    type Output = Result<String, Failure>;
    type JsValue = Unknown<'env>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(run_drift(&self.before, &self.after, &self.options))
    }

    fn resolve(&mut self, env: &'env Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        to_js(env, output)
    }
}

/// `drift` off the main thread: a Promise of the same result.
#[napi(
    ts_args_type = "before: Input, after: Input, options?: DriftOptions | null",
    ts_return_type = "Promise<DriftResult>"
)]
pub fn drift_async(
    env: &Env,
    before: JsInput<'_>,
    after: JsInput<'_>,
    options: Option<DriftOptions>,
) -> napi::Result<AsyncTask<DriftTask>> {
    Ok(AsyncTask::new(DriftTask {
        before: Input::from_js(env, before)?,
        after: Input::from_js(env, after)?,
        options: options.unwrap_or_default(),
    }))
}
