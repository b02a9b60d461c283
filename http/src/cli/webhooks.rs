//! `undertone webhooks list|delete`: every webhook endpoint of the service's database,
//! whichever key registered it (the operator's view; the API shows a key its own).

use chrono::{SecondsFormat, Utc};
use clap::{Args, Subcommand};

use super::error::CliError;
use super::keys::{DatabaseArg, open, runtime};
use crate::webhooks::shown_url;

/// `undertone webhooks …`.
#[derive(Debug, Args)]
pub struct WebhooksArgs {
    #[command(subcommand)]
    command: WebhooksCommand,
}

#[derive(Debug, Subcommand)]
enum WebhooksCommand {
    /// List every active endpoint, with the key that registered it and whether that
    /// key was revoked (a revoked key's endpoints receive nothing).
    List(ListArgs),
    /// Delete an endpoint by id, whichever key registered it; its pending deliveries
    /// are cancelled.
    Delete(DeleteArgs),
}

#[derive(Debug, Args)]
struct ListArgs {
    #[command(flatten)]
    database: DatabaseArg,
}

#[derive(Debug, Args)]
struct DeleteArgs {
    /// The endpoint's id, as `webhooks list` shows it (`wh_…`).
    id: String,
    #[command(flatten)]
    database: DatabaseArg,
}

/// Runs a `webhooks` command; returns the exit status.
pub fn run(args: &WebhooksArgs) -> u8 {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(run_async(args)) {
        Ok(code) => code,
        Err(message) => {
            super::warn(&format!("error: {message}"));
            1
        }
    }
}

async fn run_async(args: &WebhooksArgs) -> Result<u8, CliError> {
    match &args.command {
        WebhooksCommand::List(a) => {
            let store = open(&a.database).await?;
            let keys = store.list_keys().await?;
            let hooks = store.list_webhooks(None).await?;
            let mut lines = Vec::new();
            lines.push(format!(
                "{:<35}  {:<16}  {:<36}  {:<8}  {:<8}  {:<20}  url",
                "id", "org", "key", "key is", "failures", "created"
            ));
            for w in hooks {
                let state = match keys.iter().find(|k| k.id == w.key_id) {
                    Some(k) if k.revoked_at.is_some() => "revoked",
                    Some(_) => "active",
                    None => "missing",
                };
                lines.push(format!(
                    "{:<35}  {:<16}  {:<36}  {:<8}  {:<8}  {:<20}  {}",
                    w.id,
                    w.org_id,
                    w.key_id,
                    state,
                    w.failure_count,
                    w.created_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    shown_url(&w.url)
                ));
            }
            Ok(super::emit(&lines.join("\n")))
        }
        WebhooksCommand::Delete(a) => {
            let store = open(&a.database).await?;
            if store.delete_webhook(&a.id, None, Utc::now()).await? {
                Ok(super::emit(&format!("deleted {}", a.id)))
            } else {
                super::warn(&format!("error: no active webhook with id {}", a.id));
                Ok(2)
            }
        }
    }
}
