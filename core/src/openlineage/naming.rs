//! Where an OpenLineage dataset is, read from its namespace and name as the naming
//! specification writes them (<https://openlineage.io/docs/spec/naming>): a database
//! server's namespace (`postgres://host:5432`) with a dotted name
//! (`database.schema.table`), or a storage namespace (`s3://bucket`, `file`,
//! `hdfs://host:port`) with a path.

/// How a dataset's name is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A table of a database: `[database.][schema.]table`.
    Relational,
    /// A file or topic: `dir/dir/file`.
    Files,
}

/// A database server, as a namespace or a connection URL names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// The scheme, `postgresql` read as `postgres`.
    pub scheme: String,
    /// Lower-cased; `localhost`, `127.0.0.1` and `::1` are all `localhost`.
    pub host: String,
    /// The port, the scheme's default when absent.
    pub port: Option<u16>,
}

/// Where a dataset is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub shape: Shape,
    /// The containers from the top (database and schema, or directories), then the
    /// dataset itself; never empty, no part empty.
    pub parts: Vec<String>,
    /// The database server of a relational namespace with an authority.
    pub server: Option<Server>,
}

/// The schemes whose datasets are tables named with dots.
const RELATIONAL: &[&str] = &[
    "athena",
    "awsathena",
    "azuresql",
    "bigquery",
    "cassandra",
    "clickhouse",
    "databricks",
    "db2",
    "dremio",
    "duckdb",
    "hive",
    "impala",
    "mariadb",
    "mssql",
    "mysql",
    "oracle",
    "postgres",
    "presto",
    "redshift",
    "snowflake",
    "spanner",
    "sqlite",
    "sqlserver",
    "teradata",
    "trino",
    "vertica",
];

fn scheme_of(namespace: &str) -> Option<String> {
    let (scheme, _) = namespace.split_once("://")?;
    let scheme = scheme.trim().to_ascii_lowercase();
    Some(match scheme.as_str() {
        "postgresql" => "postgres".to_owned(),
        _ => scheme,
    })
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "postgres" => Some(5432),
        "redshift" => Some(5439),
        "mysql" | "mariadb" => Some(3306),
        "sqlserver" | "mssql" => Some(1433),
        _ => None,
    }
}

/// `host[:port]` of an authority (user info dropped), with the scheme's default port.
fn server(scheme: &str, authority: &str) -> Option<Server> {
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let host = host.trim().to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let host = match host.as_str() {
        "127.0.0.1" | "::1" => "localhost".to_owned(),
        _ => host,
    };
    let port = match port.filter(|p| !p.is_empty()) {
        Some(p) => Some(p.parse().ok()?),
        None => default_port(scheme),
    };
    Some(Server {
        scheme: scheme.to_owned(),
        host,
        port,
    })
}

/// Where the dataset `name` of `namespace` is.
pub fn place(namespace: &str, name: &str) -> Place {
    let scheme = scheme_of(namespace);
    let relational = scheme.as_deref().is_some_and(|s| RELATIONAL.contains(&s));
    if relational {
        let scheme = scheme.unwrap_or_default();
        let authority = namespace
            .split_once("://")
            .map(|(_, rest)| rest.split('/').next().unwrap_or(rest))
            .unwrap_or_default();
        let mut parts: Vec<String> = name
            .split('.')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        // `project.dataset.table` and longer: the extra leading parts name the database.
        if parts.len() > 3 {
            let table = parts.split_off(parts.len() - 2);
            parts = vec![parts.join("."), table[0].clone(), table[1].clone()];
        }
        if parts.is_empty() {
            parts.push(name.to_owned());
        }
        return Place {
            shape: Shape::Relational,
            parts,
            server: server(&scheme, authority),
        };
    }
    let mut parts: Vec<String> = name
        .split('/')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    if parts.is_empty() {
        parts.push(name.to_owned());
    }
    Place {
        shape: Shape::Files,
        parts,
        server: None,
    }
}

/// The server and database of a connection URL such as the database harvester's
/// `postgres://user:password@host:port/database?sslmode=require`.
pub fn database_url(url: &str) -> Option<(Server, String)> {
    let scheme = scheme_of(url)?;
    let (_, rest) = url.split_once("://")?;
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (authority, path) = rest.split_once('/')?;
    let database = path.trim_matches('/');
    if database.is_empty() || database.contains('/') {
        return None;
    }
    Some((server(&scheme, authority)?, database.to_owned()))
}

/// The name of the model that holds a namespace's datasets or jobs, readable and free
/// of `/` (which repository paths separate names by): `postgres://db:5432` is
/// `db:5432 (postgres)`. The model keeps the namespace itself as its native id.
pub fn model_name(namespace: &str) -> String {
    let name = match namespace.split_once("://") {
        Some((scheme, rest)) if !rest.trim_matches('/').is_empty() => {
            format!("{} ({scheme})", rest.trim_matches('/'))
        }
        Some((scheme, _)) => scheme.to_owned(),
        None => namespace.to_owned(),
    };
    let name = name.replace('/', " ");
    let name = name.trim();
    if name.is_empty() {
        "(no namespace)".to_owned()
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_names_are_split_by_dots() {
        let p = place("postgres://DB.example.com:5432", "shop.public.orders");
        assert_eq!(p.shape, Shape::Relational);
        assert_eq!(p.parts, ["shop", "public", "orders"]);
        assert_eq!(
            p.server,
            Some(Server {
                scheme: "postgres".into(),
                host: "db.example.com".into(),
                port: Some(5432),
            })
        );
        let p = place("postgresql://127.0.0.1", "public.orders");
        assert_eq!(p.parts, ["public", "orders"]);
        assert_eq!(p.server.unwrap().host, "localhost");
        let p = place("bigquery", "my-project.sales.orders");
        assert_eq!(
            p.shape,
            Shape::Files,
            "no authority, no scheme: a plain name"
        );
        let p = place("snowflake://org-account", "a.b.c.d");
        assert_eq!(p.parts, ["a.b", "c", "d"]);
    }

    #[test]
    fn storage_names_are_split_by_slashes() {
        let p = place("s3://bucket", "/warehouse/orders/part-0.parquet");
        assert_eq!(p.shape, Shape::Files);
        assert_eq!(p.parts, ["warehouse", "orders", "part-0.parquet"]);
        assert_eq!(p.server, None);
        assert_eq!(place("file", "orders.csv").parts, ["orders.csv"]);
        assert_eq!(place("kafka://broker:9092", "orders").parts, ["orders"]);
        assert_eq!(place("s3://bucket", "/").parts, ["/"]);
    }

    #[test]
    fn harvester_urls_name_their_server_and_database() {
        let (server, db) =
            database_url("postgres://lore:secret@localhost/shop?sslmode=disable").unwrap();
        assert_eq!(server.host, "localhost");
        assert_eq!(server.port, Some(5432));
        assert_eq!(db, "shop");
        assert_eq!(
            place("postgres://127.0.0.1:5432", "shop.public.orders").server,
            Some(server)
        );
        assert_eq!(database_url("sqlite:///tmp/x.db"), None);
        assert_eq!(database_url("postgres://host:5432/"), None);
    }

    #[test]
    fn model_names_hold_no_slash() {
        assert_eq!(model_name("postgres://db:5432"), "db:5432 (postgres)");
        assert_eq!(model_name("s3://bucket/prefix"), "bucket prefix (s3)");
        assert_eq!(model_name("my-airflow"), "my-airflow");
        assert_eq!(model_name("file"), "file");
        assert_eq!(model_name("  "), "(no namespace)");
    }
}
