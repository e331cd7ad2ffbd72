//! Several reads in one statement: each part (objects, attribute values, edges, ...)
//! becomes a `SELECT` of one wide row layout (the part's number, then its integer, text,
//! real and boolean columns in slots of their type, NULL where a part has fewer), joined
//! with `UNION ALL`. A request that needs an object and everything hanging on it then
//! costs one round trip instead of seven.

use crate::value::{ColType, Row};

/// One part of a union read: its columns (on the alias `t`), in the order its decoder
/// reads them, and what follows the column list (`FROM ... WHERE ...`).
#[derive(Debug)]
pub(crate) struct Part {
    pub columns: &'static [(&'static str, ColType)],
    pub from: String,
}

impl Part {
    /// The part as a query of its own.
    pub fn query(&self) -> String {
        let columns: Vec<String> = self.columns.iter().map(|(c, _)| format!("t.{c}")).collect();
        format!("SELECT {} {}", columns.join(", "), self.from)
    }
}

const TYPES: [ColType; 4] = [ColType::Int, ColType::Text, ColType::Real, ColType::Bool];

/// How many slots of each type the wide row has.
fn widths(parts: &[Part]) -> [usize; 4] {
    TYPES.map(|ty| {
        parts
            .iter()
            .map(|p| p.columns.iter().filter(|(_, t)| *t == ty).count())
            .max()
            .unwrap_or(0)
    })
}

fn null_of(ty: ColType) -> &'static str {
    match ty {
        ColType::Int => "CAST(NULL AS BIGINT)",
        ColType::Text => "CAST(NULL AS TEXT)",
        ColType::Real => "CAST(NULL AS DOUBLE PRECISION)",
        ColType::Bool => "CAST(NULL AS BOOLEAN)",
    }
}

/// The statement that reads every part.
pub(crate) fn union_all(parts: &[Part]) -> String {
    let widths = widths(parts);
    let selects: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(n, part)| {
            let mut exprs = vec![format!("CAST({n} AS BIGINT)")];
            for (ty, width) in TYPES.iter().zip(widths) {
                let mut of_type = part.columns.iter().filter(|(_, t)| t == ty);
                for _ in 0..width {
                    exprs.push(match of_type.next() {
                        Some((column, _)) => format!("t.{column}"),
                        None => null_of(*ty).to_owned(),
                    });
                }
            }
            format!("SELECT {} {}", exprs.join(", "), part.from)
        })
        .collect();
    selects.join(" UNION ALL ")
}

/// Splits the rows of [`union_all`] into the rows of each part, each in its own column
/// order.
pub(crate) fn split(parts: &[Part], rows: Vec<Row>) -> lore_core::Result<Vec<Vec<Row>>> {
    let widths = widths(parts);
    let mut offsets = [1; 4];
    for i in 1..4 {
        offsets[i] = offsets[i - 1] + widths[i - 1];
    }
    let mut out: Vec<Vec<Row>> = parts.iter().map(|_| Vec::new()).collect();
    for mut row in rows {
        let n = row.int(0, "a union read")?;
        let Some((part, rows)) = usize::try_from(n)
            .ok()
            .and_then(|n| parts.get(n).zip(out.get_mut(n)))
        else {
            return Err(lore_core::Error::internal(format!(
                "a union read answered part {n}, which it did not ask for"
            )));
        };
        let mut taken = [0; 4];
        let mut values = Vec::with_capacity(part.columns.len());
        for (_, ty) in part.columns {
            let t = TYPES.iter().position(|x| x == ty).unwrap_or(0);
            let slot = offsets[t] + taken[t];
            taken[t] += 1;
            values.push(std::mem::replace(
                row.0.get_mut(slot).unwrap_or(&mut crate::SqlValue::Null),
                crate::SqlValue::Null,
            ));
        }
        rows.push(Row(values));
    }
    Ok(out)
}
