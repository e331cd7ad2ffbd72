//! `lore query`: runs MQL against a Lore server and prints the objects as a table.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::text_table;

/// Which server a command talks to and as whom.
#[derive(Clone, clap::Args)]
pub struct ServerArgs {
    /// The server's API base URL.
    #[arg(
        long,
        env = "LORE_URL",
        default_value = "http://127.0.0.1:11480/MM/rest/v1"
    )]
    pub url: String,
    /// An API key (it may start with `-`); without it the command logs in with --user and
    /// --password.
    #[arg(
        long,
        env = "LORE_API_KEY",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub key: Option<String>,
    #[arg(long, env = "LORE_USER", default_value = "Administrator")]
    pub user: String,
    #[arg(
        long,
        env = "LORE_PASSWORD",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub password: Option<String>,
}

/// Prints the arguments with the key and the password masked.
impl std::fmt::Debug for ServerArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |secret: &Option<String>| secret.as_ref().map(|_| "***");
        f.debug_struct("ServerArgs")
            .field("url", &self.url)
            .field("key", &masked(&self.key))
            .field("user", &self.user)
            .field("password", &masked(&self.password))
            .finish()
    }
}

impl ServerArgs {
    /// The base URL without a trailing slash.
    pub fn base(&self) -> &str {
        self.url.trim_end_matches('/')
    }

    /// The key given, or one from logging in.
    pub async fn key(&self, client: &reqwest::Client) -> Result<String, String> {
        if let Some(key) = &self.key {
            return Ok(key.clone());
        }
        let password = self
            .password
            .clone()
            .ok_or("give --key, or --password (or LORE_PASSWORD) to log in")?;
        let login = send(
            client
                .post(format!("{}/auth/login", self.base()))
                .json(&json!({"user": self.user, "password": password})),
        )
        .await?;
        Ok(login["token"]
            .as_str()
            .ok_or("the login answered no token")?
            .to_owned())
    }
}

/// What `lore query` sends: where, who, and the query's clauses.
#[derive(Clone, Debug, clap::Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The SELECT list.
    #[arg(long, default_value = "Name, \"Object Type\", \"Object Id\"")]
    pub select: String,
    /// The from id: a repository path, an object id or a stable id.
    #[arg(long)]
    pub from: Option<String>,
    /// The WHERE filters.
    #[arg(long = "where", allow_hyphen_values = true)]
    pub filter: Option<String>,
    #[arg(long)]
    pub orderby: Option<String>,
    #[arg(long, default_value_t = 20)]
    pub page_size: i64,
    #[arg(long, default_value_t = 1)]
    pub page_number: i64,
    /// Print only how many objects the query finds.
    #[arg(long)]
    pub count: bool,
}

/// Runs the query and answers the text to print, or what went wrong.
pub async fn run(args: &QueryArgs) -> Result<String, String> {
    let client = reqwest::Client::new();
    let base = args.server.base();
    let key = args.server.key(&client).await?;
    let mut query = json!({"select": args.select});
    for (name, value) in [
        ("from", &args.from),
        ("where", &args.filter),
        ("orderby", &args.orderby),
    ] {
        if let Some(value) = value {
            query[name] = json!(value);
        }
    }
    if args.count {
        let pairs: Vec<(String, String)> = query
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect();
        let count = send(
            client
                .get(format!("{base}/entities/countMQLQuery"))
                .header("api-key", &key)
                .query(&pairs),
        )
        .await?;
        return Ok(format!("{count}\n"));
    }
    query["pageSize"] = json!(args.page_size);
    query["pageNumber"] = json!(args.page_number);
    let result = send(
        client
            .post(format!("{base}/entities/executeMQLQuery"))
            .header("api-key", &key)
            .json(&query),
    )
    .await?;
    Ok(table(
        result.as_array().map(Vec::as_slice).unwrap_or_default(),
    ))
}

/// Sends a request; answers the `result` of the envelope or the error's message.
pub async fn send(request: reqwest::RequestBuilder) -> Result<Value, String> {
    let response = request
        .send()
        .await
        .map_err(|e| format!("cannot reach the server: {e}"))?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| format!("the server answered {status} without a JSON envelope: {e}"))?;
    if !status.is_success() {
        let code = body["error"]["errorCode"].as_str().unwrap_or("ERROR");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        return Err(format!("{status} {code}: {message}"));
    }
    Ok(body["result"].clone())
}

/// Entities of the MQL format as a text table: a header of the SELECT items' display
/// names, one row per entity.
pub fn table(entities: &[Value]) -> String {
    let Some(first) = entities.first() else {
        return "(no objects)\n".to_owned();
    };
    let header: Vec<String> = first["attributes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| cell(&a["attributeType"]["displayName"]))
        .collect();
    let rows: Vec<Vec<String>> = entities
        .iter()
        .map(|e| {
            e["attributes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| cell(&a["value"]))
                .collect()
        })
        .collect();
    let mut out = text_table::render(&header, &rows);
    let _ = writeln!(out, "({} objects)", rows.len());
    out
}

/// A value as a table cell: text as it is, arrays joined, objects by name or as JSON.
fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(cell).collect::<Vec<_>>().join(", "),
        Value::Object(map) => match map.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => value.to_string(),
        },
        other => other.to_string(),
    };
    text_table::cell(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns_and_flattens_values() {
        let entity = |name: &str, labels: Value| {
            json!({"attributes": [
                {"attributeType": {"name": "Name", "displayName": "Name", "type": "SYSTEM_ATTRIBUTE"}, "value": name},
                {"attributeType": {"name": "Labels", "displayName": "Labels", "type": "SYSTEM_ATTRIBUTE"}, "value": labels},
            ]})
        };
        let text = table(&[
            entity("customer_id", json!(["PII", "Key"])),
            entity("x", json!(null)),
        ]);
        assert_eq!(
            text,
            "Name         Labels\n-----------  --------\ncustomer_id  PII, Key\nx\n(2 objects)\n"
        );
        assert_eq!(table(&[]), "(no objects)\n");
        assert!(cell(&json!("a".repeat(100))).ends_with('…'));
    }
}
