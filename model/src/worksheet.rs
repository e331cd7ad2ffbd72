use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The clauses of an MQL query as the query endpoints take them, one field each and
/// without the SELECT, FROM, WHERE or ORDER BY keywords: what a worksheet keeps, so it
/// runs exactly as `executeMQLQuery` would run the same fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedQuery {
    /// The SELECT list, e.g. `Name, "Object Type"`.
    pub select: String,
    /// The from id (repository path, object id or stable id), with optional scope
    /// filters in parentheses.
    pub from: Option<String>,
    /// Scope filters on the from id.
    pub scope: Option<String>,
    /// The WHERE filters.
    #[serde(rename = "where")]
    pub filter: Option<String>,
    /// The sort keys.
    #[serde(rename = "orderby")]
    pub order_by: Option<String>,
    /// The CONTEXT clause.
    pub context: Option<String>,
    /// The MQL version the clauses are written in (1 to 3).
    pub mql_version: u32,
}

/// A worksheet: a query a user saved under a name to run again
/// (`POST /entities/executeWorksheet`). Worksheets have `-1_<n>` ids and belong to one
/// user; names are unique among one owner's worksheets, compared case-insensitively
/// (see [`Worksheet::name_key`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Worksheet {
    pub id: ObjectId,
    pub name: String,
    /// The user who saved it.
    #[serde(rename = "ownerId")]
    pub owner: ObjectId,
    pub description: String,
    #[serde(flatten)]
    pub query: SavedQuery,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Worksheet {
    /// The key a worksheet name is unique by among its owner's worksheets: the name in
    /// Unicode lowercase, as user names are keyed.
    pub fn name_key(name: &str) -> String {
        name.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn a_worksheet_reads_as_the_query_endpoints_write_their_fields() {
        let at = chrono::DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap();
        let worksheet = Worksheet {
            id: ObjectId::repository(7),
            name: "PII columns".into(),
            owner: ObjectId::repository(2),
            description: String::new(),
            query: SavedQuery {
                select: "Name".into(),
                filter: Some("Labels = 'PII'".into()),
                order_by: Some("Name desc".into()),
                mql_version: 3,
                ..SavedQuery::default()
            },
            created_at: at,
            updated_at: at,
        };
        let json = serde_json::to_value(&worksheet).unwrap();
        assert_eq!(json["id"], "-1_7");
        assert_eq!(json["ownerId"], "-1_2");
        assert_eq!(json["where"], "Labels = 'PII'");
        assert_eq!(json["orderby"], "Name desc");
        assert_eq!(json["mqlVersion"], 3);
        assert_eq!(
            serde_json::from_value::<Worksheet>(json).unwrap(),
            worksheet
        );
        assert_eq!(Worksheet::name_key("ÄrGer"), Worksheet::name_key("äRger"));
    }
}
