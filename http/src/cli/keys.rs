//! `undertone keys create|list|revoke`: API keys in the service's database.

use chrono::Utc;
use clap::{Args, Subcommand};

use super::error::CliError;
use crate::keys::{Scope, issue};
use crate::limits::Plan;
use crate::store::{self, Store};

/// The database flag shared by `serve` and `keys`.
#[derive(Debug, Args)]
pub struct DatabaseArg {
    /// Database URL: `sqlite://PATH` (created if missing) or
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE[?pool_size=N]` (docs/deploy.md).
    /// Read from UNDERTONE_DATABASE_URL when not given, which keeps a password out of
    /// the process list.
    #[arg(
        long,
        alias = "database-url",
        env = "UNDERTONE_DATABASE_URL",
        hide_env_values = true,
        default_value = store::DEFAULT_DATABASE
    )]
    pub database: String,
}

/// `undertone keys …`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a key; prints it and its webhook delivery secret once.
    Create(CreateArgs),
    /// List keys (their first 12 characters, never the key).
    List(ListArgs),
    /// Revoke a key by id; requests with it get 401 from then on.
    Revoke(RevokeArgs),
}

#[derive(Debug, Args)]
struct CreateArgs {
    /// A name to recognise the key by.
    #[arg(long, value_parser = not_blank)]
    name: String,
    /// What the key may do.
    #[arg(long, value_enum)]
    scope: Scope,
    /// Organisation; keys of one organisation see each other's sessions.
    #[arg(long, default_value = "default", value_parser = not_blank)]
    org: String,
    /// Requests per UTC hour (at least 1).
    #[arg(long, default_value_t = Plan::default().per_hour, value_parser = clap::value_parser!(u32).range(1..))]
    per_hour: u32,
    /// Requests per UTC day (at least 1).
    #[arg(long, default_value_t = Plan::default().per_day, value_parser = clap::value_parser!(u32).range(1..))]
    per_day: u32,
    /// Drift sessions per UTC hour (at least 1).
    #[arg(long, default_value_t = Plan::default().drift_per_hour, value_parser = clap::value_parser!(u32).range(1..))]
    drift_per_hour: u32,
    #[command(flatten)]
    database: DatabaseArg,
}

/// A name or organisation: text with something besides spaces, and no control
/// character (it is printed in listings and logs).
fn not_blank(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("must not be empty or only spaces".to_owned());
    }
    if text.chars().any(char::is_control) {
        return Err("must not hold control characters".to_owned());
    }
    Ok(text.to_owned())
}

#[derive(Debug, Args)]
struct ListArgs {
    #[command(flatten)]
    database: DatabaseArg,
}

#[derive(Debug, Args)]
struct RevokeArgs {
    /// The key's id, as `keys list` shows it (`key_…`).
    id: String,
    #[command(flatten)]
    database: DatabaseArg,
}

/// A current-thread runtime for a command, or the exit status to return.
pub(super) fn runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            super::warn(&format!("error: cannot start the async runtime: {e}"));
            1
        })
}

/// Runs a `keys` command; returns the exit status.
pub fn run(args: &KeysArgs) -> u8 {
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

pub(super) async fn open(db: &DatabaseArg) -> Result<std::sync::Arc<Store>, CliError> {
    store::open(&db.database)
        .await
        .map_err(|source| CliError::OpenDatabase {
            url: store::redact(&db.database),
            source,
        })
}

async fn run_async(args: &KeysArgs) -> Result<u8, CliError> {
    match &args.command {
        KeysCommand::Create(a) => {
            let store = open(&a.database).await?;
            let plan = Plan {
                per_hour: a.per_hour,
                per_day: a.per_day,
                drift_per_hour: a.drift_per_hour,
            };
            let (record, key) =
                issue(store.as_ref(), &a.name, &a.org, a.scope, plan, Utc::now()).await?;
            let mut lines = Vec::new();
            lines.push(format!("id:              {}", record.id));
            lines.push(format!("name:            {}", record.name));
            lines.push(format!("scope:           {}", record.scope.as_str()));
            lines.push(format!("key:             {key}"));
            lines.push(format!("delivery secret: {}", record.delivery_secret));
            super::warn("The key and the delivery secret are shown only this once.");
            Ok(super::emit(&lines.join("\n")))
        }
        KeysCommand::List(a) => {
            let store = open(&a.database).await?;
            let keys = store.list_keys().await?;
            let mut lines = Vec::new();
            lines.push(format!(
                "{:<36}  {:<16}  {:<10}  {:<14}  {:<24}  revoked",
                "id", "name", "scope", "key starts", "created"
            ));
            for k in keys {
                lines.push(format!(
                    "{:<36}  {:<16}  {:<10}  {:<14}  {:<24}  {}",
                    k.id,
                    k.name,
                    k.scope.as_str(),
                    format!("{}…", k.display_prefix),
                    k.created_at
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    k.revoked_at
                        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                        .unwrap_or_else(|| "-".into())
                ));
            }
            Ok(super::emit(&lines.join("\n")))
        }
        KeysCommand::Revoke(a) => {
            let store = open(&a.database).await?;
            if store.revoke_key(&a.id, Utc::now()).await? {
                Ok(super::emit(&format!("revoked {}", a.id)))
            } else {
                super::warn(&format!("error: no active key with id {}", a.id));
                Ok(2)
            }
        }
    }
}
