//! Data profiling for Lore importers: the DataProfile of one column
//! (`docs/model-archive.md`, `profiling.csv`; the statistics names of MQL's data
//! profiling attributes), computed in one pass over its values with bounded memory, and
//! DataSamples.
//!
//! ```
//! use lore_importer_kit::profile::ColumnProfiler;
//!
//! let mut amount = ColumnProfiler::new();
//! for value in ["12.50", "7.25", "", "12.50"] {
//!     amount.add(Some(value));
//! }
//! let profile = amount.finish("2024-05-14T09:30:00Z");
//! assert_eq!(profile["statistics"]["DistinctRows"], 2);
//! assert_eq!(profile["statistics"]["EmptyRows"], 1);
//! assert_eq!(profile["inferredDataTypes"]["DECIMAL"], 3);
//! ```
//!
//! What is exact and what is not: row counts, type counts, lengths, `min`, `max`, `mean`
//! and `variance` are always exact. Distinct values, their counts (`values`) and the
//! `patterns` are kept for at most a bounded number of entries (and bytes) per column;
//! beyond that [`ColumnProfiler::is_approximate`] turns true, `DistinctRows` becomes a
//! HyperLogLog estimate and the top values and patterns count only what was first seen.
//! Numeric values are kept in a reservoir of the same bound: the median, quantiles and
//! histogram are exact while every value fits and computed on a uniform sample beyond.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

/// Distinct values (and patterns, and numbers in the reservoir) kept per column by default.
pub const DEFAULT_VALUE_LIMIT: usize = 100_000;
/// Bytes of distinct values (and of patterns) kept per column by default.
pub const DEFAULT_BYTE_LIMIT: usize = 16 << 20;
/// How many of the most frequent values and patterns a profile lists.
pub const TOP: usize = 10;
/// Buckets of a numeric column's histogram.
pub const HISTOGRAM_BUCKETS: usize = 10;
/// The share of a column's non-empty values a type must accept to be the column's type;
/// the values it does not accept are the column's invalid values.
pub const TYPE_THRESHOLD: f64 = 0.9;
/// Characters of a value kept in a data sample; longer values are cut with `…`.
pub const MAX_SAMPLE_CHARS: usize = 1_000;
/// Characters of a value whose shape makes its pattern; longer patterns end with `…`.
const MAX_PATTERN_CHARS: usize = 64;
/// Distinct invalid values listed in `invalidDataTypeValues`.
const MAX_INVALID_VALUES: usize = 10;
/// What a kept string costs besides its bytes (the map entry, the allocation), roughly.
const ENTRY_OVERHEAD: usize = 48;

/// The type of a value or a column, as profiles name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    Integer,
    Decimal,
    Boolean,
    Date,
    DateTime,
    String,
}

impl DataType {
    pub const ALL: [DataType; 6] = [
        Self::Integer,
        Self::Decimal,
        Self::Boolean,
        Self::Date,
        Self::DateTime,
        Self::String,
    ];

    /// The name in `inferredDataTypes` and in a field's data type: `INTEGER`, `DECIMAL`,
    /// `BOOLEAN`, `DATE`, `DATETIME` or `STRING`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Integer => "INTEGER",
            Self::Decimal => "DECIMAL",
            Self::Boolean => "BOOLEAN",
            Self::Date => "DATE",
            Self::DateTime => "DATETIME",
            Self::String => "STRING",
        }
    }

    /// The most specific type of one value (leading and trailing blanks ignored):
    /// - `INTEGER`: an optional sign and digits (`-42`, `007`);
    /// - `DECIMAL`: a finite decimal number (`3.14`, `.5`, `1e-3`);
    /// - `BOOLEAN`: `true`, `false`, `yes` or `no`, in any case;
    /// - `DATE`: an ISO date, `2024-05-14`;
    /// - `DATETIME`: an ISO date and time, `2024-05-14T09:30:00Z`, `2024-05-14 09:30:00`,
    ///   with optional fractions of a second and offset;
    /// - `STRING`: anything else.
    pub fn of(value: &str) -> DataType {
        let value = value.trim();
        if is_integer(value) {
            Self::Integer
        } else if parse_decimal(value).is_some() {
            Self::Decimal
        } else if is_boolean(value) {
            Self::Boolean
        } else if is_date(value) {
            Self::Date
        } else if is_datetime(value) {
            Self::DateTime
        } else {
            Self::String
        }
    }

    /// Whether a column of this type holds a value whose own type is `value_type`:
    /// decimals hold integers, date-times hold dates, strings hold everything.
    pub fn accepts(self, value_type: DataType) -> bool {
        self == value_type
            || self == Self::String
            || (self == Self::Decimal && value_type == Self::Integer)
            || (self == Self::DateTime && value_type == Self::Date)
    }

    pub fn is_numeric(self) -> bool {
        matches!(self, Self::Integer | Self::Decimal)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn is_integer(value: &str) -> bool {
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The number a decimal literal stands for: digits with at most one point and an optional
/// exponent; `inf`, `NaN` and out-of-range numbers are not decimals.
fn parse_decimal(value: &str) -> Option<f64> {
    let unsigned = value.strip_prefix(['+', '-']).unwrap_or(value);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok =
        digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !(mantissa_ok && exponent_ok) {
        return None;
    }
    value.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn is_boolean(value: &str) -> bool {
    ["true", "false", "yes", "no"]
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word))
}

/// `YYYY-MM-DD` at the start of `value`, cheaply, before chrono is asked.
fn looks_like_date(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

fn is_date(value: &str) -> bool {
    value.len() == 10
        && looks_like_date(value)
        && NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok()
}

fn is_datetime(value: &str) -> bool {
    if value.len() < 16 || !looks_like_date(value) {
        return false;
    }
    DateTime::parse_from_rfc3339(value).is_ok()
        || DateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S%.f%#z").is_ok()
        || DateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%S%.f%#z").is_ok()
        || NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S%.f").is_ok()
        || NaiveDateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
        || NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M").is_ok()
        || NaiveDateTime::parse_from_str(value, "%Y-%m-%dT%H:%M").is_ok()
}

/// The shape of a value: `9` for a digit, `A` for an upper-case letter, `a` for a
/// lower-case one (and `A` for a letter without case); everything else as it is.
/// `AB-12.5x` has the pattern `AA-99.9a`. Only the first 64 characters count; a longer
/// value's pattern ends with `…`.
pub fn pattern(value: &str) -> String {
    let mut out = String::new();
    push_pattern(value, &mut out);
    out
}

fn push_pattern(value: &str, out: &mut String) {
    let mut chars = value.chars();
    for c in chars.by_ref().take(MAX_PATTERN_CHARS) {
        out.push(if c.is_numeric() {
            '9'
        } else if c.is_lowercase() {
            'a'
        } else if c.is_alphabetic() {
            'A'
        } else {
            c
        });
    }
    if chars.next().is_some() {
        out.push('…');
    }
}

/// A value as a data sample shows it: `null` when empty, cut to [`MAX_SAMPLE_CHARS`]
/// characters.
pub fn sample_value(value: Option<&str>) -> Value {
    match value {
        None | Some("") => Value::Null,
        Some(text) => Value::String(truncate(text, MAX_SAMPLE_CHARS)),
    }
}

fn truncate(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The current time as a profile's `profilingDate`: RFC 3339 in UTC, to the second.
pub fn profiling_date() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A DataSample: `{"header":[column,...],"samples":[[value,...],...]}`.
pub fn data_sample(header: &[String], samples: Vec<Vec<Value>>) -> Value {
    json!({ "header": header, "samples": samples })
}

/// A DataSample of one column: `{"header":[column],"samples":[[v],...]}`.
pub fn column_sample<'a>(column: &str, values: impl IntoIterator<Item = Option<&'a str>>) -> Value {
    let samples: Vec<Value> = values
        .into_iter()
        .map(|v| Value::Array(vec![sample_value(v)]))
        .collect();
    json!({ "header": [column], "samples": samples })
}

/// How many non-empty values of each [`DataType`] a column holds, and so its type. The
/// part of [`ColumnProfiler`] that infers a column's type, for when nothing else is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeCounts {
    counts: [u64; 6],
}

impl TypeCounts {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts a value; empty values (none, or only blanks) are not counted.
    pub fn add(&mut self, value: Option<&str>) {
        if let Some(value) = value.filter(|v| !v.trim().is_empty()) {
            self.count(DataType::of(value));
        }
    }

    fn count(&mut self, value_type: DataType) {
        self.counts[value_type.index()] += 1;
    }

    /// Non-empty values of type `value_type` counted.
    pub fn get(&self, value_type: DataType) -> u64 {
        self.counts[value_type.index()]
    }

    /// Non-empty values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Values a column of type `column_type` would hold.
    pub fn accepted_by(&self, column_type: DataType) -> u64 {
        DataType::ALL
            .iter()
            .filter(|t| column_type.accepts(**t))
            .map(|t| self.get(*t))
            .sum()
    }

    /// The column's type: of the types other than `STRING`, the one that accepts the most
    /// values (the more specific one on a tie), when it accepts at least
    /// [`TYPE_THRESHOLD`] of them; `STRING` otherwise, and for a column of empty values.
    pub fn data_type(&self) -> DataType {
        let total = self.total();
        let mut best = (DataType::String, 0);
        for candidate in &DataType::ALL[..5] {
            let accepted = self.accepted_by(*candidate);
            if accepted > best.1 {
                best = (*candidate, accepted);
            }
        }
        if total > 0 && best.1 as f64 >= TYPE_THRESHOLD * total as f64 {
            best.0
        } else {
            DataType::String
        }
    }
}

/// Counts of distinct strings, bounded in entries and bytes: once full, only strings
/// already kept are counted.
#[derive(Debug)]
struct BoundedCounter {
    counts: HashMap<Box<str>, u64>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    full: bool,
}

impl BoundedCounter {
    fn new(max_entries: usize, max_bytes: usize) -> Self {
        Self {
            counts: HashMap::new(),
            bytes: 0,
            max_entries,
            max_bytes,
            full: false,
        }
    }

    fn add(&mut self, key: &str) {
        if let Some(count) = self.counts.get_mut(key) {
            *count += 1;
            return;
        }
        let cost = key.len() + ENTRY_OVERHEAD;
        if self.counts.len() >= self.max_entries || self.bytes + cost > self.max_bytes {
            self.full = true;
            return;
        }
        self.bytes += cost;
        self.counts.insert(key.into(), 1);
    }

    /// Every kept entry, the most frequent first (then by the string).
    fn ranked(&self) -> Vec<(&str, u64)> {
        let mut entries: Vec<(&str, u64)> =
            self.counts.iter().map(|(k, c)| (k.as_ref(), *c)).collect();
        entries.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        entries
    }

    fn top(&self, n: usize) -> Map<String, Value> {
        self.ranked()
            .into_iter()
            .take(n)
            .map(|(k, c)| (k.to_owned(), Value::from(c)))
            .collect()
    }
}

/// A HyperLogLog sketch of distinct strings (2^14 registers, about 0.8% standard error).
#[derive(Debug)]
struct DistinctSketch {
    registers: Box<[u8]>,
}

impl DistinctSketch {
    const BITS: u32 = 14;

    fn new() -> Self {
        Self {
            registers: vec![0; 1 << Self::BITS].into_boxed_slice(),
        }
    }

    fn add(&mut self, value: &str) {
        // SipHash with fixed keys: the same value always lands in the same register.
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(value);
        let index = (hash >> (64 - Self::BITS)) as usize;
        let rank = ((hash << Self::BITS).leading_zeros() + 1).min(64 - Self::BITS + 1) as u8;
        if let Some(register) = self.registers.get_mut(index)
            && rank > *register
        {
            *register = rank;
        }
    }

    fn estimate(&self) -> u64 {
        let m = self.registers.len() as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self
            .registers
            .iter()
            .map(|r| 2f64.powi(-i32::from(*r)))
            .sum();
        let raw = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|r| **r == 0).count();
        let estimate = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        estimate.round() as u64
    }
}

/// Count, mean, variance (Welford), min and max of numbers: exact in one pass.
#[derive(Debug, Default)]
struct Moments {
    count: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl Moments {
    fn add(&mut self, x: f64) {
        if self.count == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// The population variance.
    fn variance(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.m2 / self.count as f64
        }
    }
}

/// A uniform sample of numbers (Algorithm R) with a fixed seed: all of them while they
/// fit, so quantiles are exact for columns within the bound and reproducible beyond.
#[derive(Debug)]
struct Reservoir {
    values: Vec<f64>,
    capacity: usize,
    seen: u64,
    state: u64,
}

impl Reservoir {
    fn new(capacity: usize) -> Self {
        Self {
            values: Vec::new(),
            capacity: capacity.max(1),
            seen: 0,
            state: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn add(&mut self, x: f64) {
        self.seen += 1;
        if self.values.len() < self.capacity {
            self.values.push(x);
            return;
        }
        let slot = self.next_random() % self.seen;
        if let Some(kept) = usize::try_from(slot)
            .ok()
            .and_then(|slot| self.values.get_mut(slot))
        {
            *kept = x;
        }
    }

    /// SplitMix64.
    fn next_random(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn is_complete(&self) -> bool {
        self.values.len() as u64 == self.seen
    }
}

/// The quantile `q` of sorted numbers, interpolated linearly between the closest ranks
/// (the "type 7" definition of R and NumPy): the median of 1, 2, 3, 4 is 2.5.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q * last as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let (low, high) = (*sorted.get(below)?, *sorted.get(above)?);
    Some(low + (high - low) * (position - below as f64))
}

/// A number as a histogram bound shows it: rounded to 12 significant digits, so that
/// `0.1 + 0.2` shows as `0.3`.
fn bound(x: f64) -> String {
    let rounded: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    rounded.to_string()
}

/// The profile of one column, built value by value. See the [crate](crate) docs for what
/// is exact.
#[derive(Debug)]
pub struct ColumnProfiler {
    rows: u64,
    empty: u64,
    types: TypeCounts,
    length_sum: u64,
    min_length: u64,
    max_length: u64,
    values: BoundedCounter,
    patterns: BoundedCounter,
    sketch: DistinctSketch,
    moments: Moments,
    reservoir: Reservoir,
    pattern_buffer: String,
}

impl Default for ColumnProfiler {
    fn default() -> Self {
        Self::new()
    }
}

impl ColumnProfiler {
    /// A profiler with the default bounds, [`DEFAULT_VALUE_LIMIT`] and
    /// [`DEFAULT_BYTE_LIMIT`].
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_VALUE_LIMIT, DEFAULT_BYTE_LIMIT)
    }

    /// A profiler that keeps at most `values` distinct values, patterns and numbers, and
    /// at most `bytes` bytes of distinct values and of patterns.
    pub fn with_limits(values: usize, bytes: usize) -> Self {
        Self {
            rows: 0,
            empty: 0,
            types: TypeCounts::new(),
            length_sum: 0,
            min_length: u64::MAX,
            max_length: 0,
            values: BoundedCounter::new(values, bytes),
            patterns: BoundedCounter::new(values, bytes),
            sketch: DistinctSketch::new(),
            moments: Moments::default(),
            reservoir: Reservoir::new(values),
            pattern_buffer: String::new(),
        }
    }

    /// Adds the value of one row: `None`, an empty string or only blanks is an empty row.
    pub fn add(&mut self, value: Option<&str>) {
        self.rows += 1;
        let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
            self.empty += 1;
            return;
        };
        let value_type = DataType::of(value);
        self.types.count(value_type);

        let length = value.chars().count() as u64;
        self.length_sum += length;
        self.min_length = self.min_length.min(length);
        self.max_length = self.max_length.max(length);

        self.values.add(value);
        self.sketch.add(value);
        self.pattern_buffer.clear();
        push_pattern(value, &mut self.pattern_buffer);
        self.patterns.add(&self.pattern_buffer);

        if value_type.is_numeric()
            && let Some(x) = parse_decimal(value.trim())
        {
            self.moments.add(x);
            self.reservoir.add(x);
        }
    }

    /// Rows added so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The column's type so far (see [`TypeCounts::data_type`]).
    pub fn data_type(&self) -> DataType {
        self.types.data_type()
    }

    /// Whether a bound was reached: the distinct count is an estimate, the top values,
    /// patterns, quantiles and histogram approximate.
    pub fn is_approximate(&self) -> bool {
        self.values.full || self.patterns.full || !self.reservoir.is_complete()
    }

    /// The DataProfile: `totalProfiledRows`, `profilingDate`, `statistics`,
    /// `inferredDataTypes`, `invalidDataTypeValues`, `patterns`, `values` and `histogram`.
    /// Numeric statistics (`min` ... `upperQuantile`) and the histogram are given for
    /// `INTEGER` and `DECIMAL` columns only, the length statistics when there are values.
    pub fn finish(self, profiling_date: &str) -> Value {
        let data_type = self.data_type();
        let non_empty = self.types.total();
        let valid = self.types.accepted_by(data_type);
        let distinct = if self.values.full {
            self.sketch
                .estimate()
                .max(self.values.counts.len() as u64)
                .min(non_empty)
        } else {
            self.values.counts.len() as u64
        };

        let mut statistics = Map::new();
        let mut put = |key: &str, value: Value| {
            statistics.insert(key.to_owned(), value);
        };
        put("DistinctRows", distinct.into());
        put("DuplicateRows", (non_empty - distinct).into());
        put("ValidRows", valid.into());
        put("EmptyRows", self.empty.into());
        put("InvalidRows", (non_empty - valid).into());

        let mut histogram = Vec::new();
        if data_type.is_numeric() && self.moments.count > 0 {
            let mut sorted = self.reservoir.values.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            put("min", self.moments.min.into());
            put("max", self.moments.max.into());
            put("mean", self.moments.mean.into());
            put("variance", self.moments.variance().into());
            for (key, q) in [
                ("median", 0.5),
                ("lowerQuantile", 0.25),
                ("upperQuantile", 0.75),
            ] {
                if let Some(x) = quantile(&sorted, q) {
                    put(key, x.into());
                }
            }
            histogram = self.histogram(&sorted);
        }
        if non_empty > 0 {
            put(
                "avgLength",
                (self.length_sum as f64 / non_empty as f64).into(),
            );
            put("minLength", self.min_length.into());
            put("maxLength", self.max_length.into());
        }

        let inferred: Map<String, Value> = DataType::ALL
            .iter()
            .filter(|t| self.types.get(**t) > 0)
            .map(|t| (t.as_str().to_owned(), self.types.get(*t).into()))
            .collect();
        let invalid: Vec<Value> = if valid < non_empty {
            self.values
                .ranked()
                .into_iter()
                .filter(|(v, _)| !data_type.accepts(DataType::of(v)))
                .take(MAX_INVALID_VALUES)
                .map(|(v, _)| Value::String(truncate(v, MAX_SAMPLE_CHARS)))
                .collect()
        } else {
            Vec::new()
        };

        json!({
            "totalProfiledRows": self.rows,
            "profilingDate": profiling_date,
            "statistics": statistics,
            "inferredDataTypes": inferred,
            "invalidDataTypeValues": invalid,
            "patterns": self.patterns.top(TOP),
            "values": self.values.top(TOP),
            "histogram": histogram,
        })
    }

    /// [`HISTOGRAM_BUCKETS`] equal-width buckets from `min` to `max` (the last one includes
    /// `max`); one bucket when all numbers are equal. Counts from a sample are scaled to
    /// the number of values.
    fn histogram(&self, sorted: &[f64]) -> Vec<Value> {
        let (min, max, count) = (self.moments.min, self.moments.max, self.moments.count);
        let bucket = |count: u64, lower: f64, upper: f64| json!({ "count": count, "lower": bound(lower), "upper": bound(upper) });
        if sorted.is_empty() {
            return Vec::new();
        }
        if max <= min {
            return vec![bucket(count, min, max)];
        }
        let width = (max - min) / HISTOGRAM_BUCKETS as f64;
        let mut counts = [0u64; HISTOGRAM_BUCKETS];
        for x in sorted {
            let index = (((x - min) / width).floor() as usize).min(HISTOGRAM_BUCKETS - 1);
            counts[index] += 1;
        }
        let scale = count as f64 / sorted.len() as f64;
        counts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let lower = min + width * i as f64;
                let upper = if i + 1 == HISTOGRAM_BUCKETS {
                    max
                } else {
                    min + width * (i + 1) as f64
                };
                let c = if self.reservoir.is_complete() {
                    *c
                } else {
                    (*c as f64 * scale).round() as u64
                };
                bucket(c, lower, upper)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(values: &[Option<&str>]) -> Value {
        let mut profiler = ColumnProfiler::new();
        for v in values {
            profiler.add(*v);
        }
        profiler.finish("2024-05-14T09:30:00Z")
    }

    #[test]
    fn values_get_their_most_specific_type() {
        let cases = [
            ("42", DataType::Integer),
            ("-007", DataType::Integer),
            (" 12 ", DataType::Integer),
            ("3.14", DataType::Decimal),
            (".5", DataType::Decimal),
            ("-1e-3", DataType::Decimal),
            ("2.", DataType::Decimal),
            ("1e999", DataType::String),
            ("inf", DataType::String),
            ("NaN", DataType::String),
            ("1.2.3", DataType::String),
            ("+", DataType::String),
            ("e5", DataType::String),
            ("TRUE", DataType::Boolean),
            ("no", DataType::Boolean),
            ("2024-05-14", DataType::Date),
            ("2024-02-30", DataType::String),
            ("2024-05-14T09:30:00Z", DataType::DateTime),
            ("2024-05-14 09:30:00", DataType::DateTime),
            ("2024-05-14 09:30:00.123+02", DataType::DateTime),
            ("2024-05-14T09:30", DataType::DateTime),
            ("2024-05-14 25:00:00", DataType::String),
            ("AB-12", DataType::String),
        ];
        for (value, expected) in cases {
            assert_eq!(DataType::of(value), expected, "{value:?}");
        }
    }

    #[test]
    fn patterns_keep_the_shape_of_values() {
        assert_eq!(pattern("AB-12.5x"), "AA-99.9a");
        assert_eq!(pattern("Ölçü 7"), "Aaaa 9");
        assert_eq!(pattern(&"x".repeat(70)), format!("{}…", "a".repeat(64)));
    }

    #[test]
    fn a_column_type_needs_nine_tenths_of_the_values() {
        let mut types = TypeCounts::new();
        for _ in 0..9 {
            types.add(Some("1"));
        }
        types.add(Some("n/a"));
        types.add(None);
        assert_eq!(types.data_type(), DataType::Integer);
        types.add(Some("n/a"));
        assert_eq!(types.data_type(), DataType::String);

        let mut mixed = TypeCounts::new();
        for v in ["1", "2", "2.5", "2024-01-01"] {
            mixed.add(Some(v));
        }
        assert_eq!(mixed.accepted_by(DataType::Decimal), 3);
        assert_eq!(mixed.data_type(), DataType::String);

        let mut dates = TypeCounts::new();
        for v in ["2024-01-01", "2024-01-01 10:00:00"] {
            dates.add(Some(v));
        }
        assert_eq!(dates.data_type(), DataType::DateTime);
        assert_eq!(TypeCounts::new().data_type(), DataType::String);
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&sorted, 0.5), Some(2.5));
        assert_eq!(quantile(&sorted, 0.25), Some(1.75));
        assert_eq!(quantile(&sorted, 0.75), Some(3.25));
        assert_eq!(quantile(&[7.0], 0.25), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn a_numeric_column_with_an_invalid_value() {
        let mut values: Vec<Option<&str>> = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
            .into_iter()
            .map(Some)
            .collect();
        values.push(Some("n/a"));
        values.push(None);
        let p = profile(&values);
        let s = &p["statistics"];
        assert_eq!(p["totalProfiledRows"], 12);
        assert_eq!(s["ValidRows"], 10);
        assert_eq!(s["InvalidRows"], 1);
        assert_eq!(s["EmptyRows"], 1);
        assert_eq!(s["DistinctRows"], 11);
        assert_eq!(s["min"], 1.0);
        assert_eq!(s["max"], 10.0);
        assert!((s["mean"].as_f64().expect("a mean") - 5.5).abs() < 1e-12);
        assert!((s["variance"].as_f64().expect("a variance") - 8.25).abs() < 1e-12);
        assert_eq!(s["median"], 5.5);
        assert_eq!(p["invalidDataTypeValues"], json!(["n/a"]));
        assert_eq!(p["inferredDataTypes"], json!({"INTEGER": 10, "STRING": 1}));
        let counts: Vec<u64> = p["histogram"]
            .as_array()
            .expect("a histogram")
            .iter()
            .map(|b| b["count"].as_u64().expect("a count"))
            .collect();
        assert_eq!(counts, vec![1; 10]);
        assert_eq!(p["histogram"][0]["lower"], "1");
        assert_eq!(p["histogram"][0]["upper"], "1.9");
        assert_eq!(p["histogram"][9]["upper"], "10");
    }

    #[test]
    fn equal_numbers_make_one_bucket_and_strings_none() {
        let p = profile(&[Some("5"), Some("5")]);
        assert_eq!(
            p["histogram"],
            json!([{"count": 2, "lower": "5", "upper": "5"}])
        );
        assert_eq!(p["statistics"]["DuplicateRows"], 1);
        let p = profile(&[Some("a"), Some("b")]);
        assert_eq!(p["histogram"], json!([]));
        assert!(p["statistics"].get("min").is_none());
        let p = profile(&[None, Some("  ")]);
        assert_eq!(p["statistics"]["EmptyRows"], 2);
        assert!(p["statistics"].get("avgLength").is_none());
        assert_eq!(p["inferredDataTypes"], json!({}));
    }

    #[test]
    fn beyond_the_bounds_counts_are_estimated_and_memory_stays_flat() {
        let mut profiler = ColumnProfiler::with_limits(1_000, 1 << 20);
        for n in 0..40_000u64 {
            profiler.add(Some(&(n % 20_000).to_string()));
        }
        assert!(profiler.is_approximate());
        assert_eq!(profiler.values.counts.len(), 1_000);
        assert_eq!(profiler.reservoir.values.len(), 1_000);
        let p = profiler.finish("2024-05-14T09:30:00Z");
        let s = &p["statistics"];
        let distinct = s["DistinctRows"].as_f64().expect("a count");
        assert!((distinct - 20_000.0).abs() < 20_000.0 * 0.03, "{distinct}");
        assert_eq!(
            s["DistinctRows"].as_u64().expect("a count")
                + s["DuplicateRows"].as_u64().expect("a count"),
            40_000
        );
        // Exact however many values: min, max, mean.
        assert_eq!(s["min"], 0.0);
        assert_eq!(s["max"], 19_999.0);
        assert!((s["mean"].as_f64().expect("a mean") - 9_999.5).abs() < 1e-6);
        // From the sample: within a few percent.
        let median = s["median"].as_f64().expect("a median");
        assert!((median - 10_000.0).abs() < 1_000.0, "{median}");
        let total: u64 = p["histogram"]
            .as_array()
            .expect("a histogram")
            .iter()
            .map(|b| b["count"].as_u64().expect("a count"))
            .sum();
        assert!(total.abs_diff(40_000) <= 10, "{total}");
    }

    #[test]
    fn a_byte_bound_stops_long_values_from_being_kept() {
        let mut profiler = ColumnProfiler::with_limits(1_000, 10_000);
        let long = "x".repeat(1_000);
        for n in 0..100 {
            profiler.add(Some(&format!("{n}{long}")));
        }
        assert!(profiler.values.bytes <= 10_000);
        assert!(profiler.is_approximate());
        let p = profiler.finish("now");
        let distinct = p["statistics"]["DistinctRows"].as_u64().expect("a count");
        assert!((97..=100).contains(&distinct), "{distinct}");
    }

    #[test]
    fn samples_show_empty_values_as_null_and_cut_long_ones() {
        assert_eq!(sample_value(None), Value::Null);
        assert_eq!(sample_value(Some("")), Value::Null);
        let long = "é".repeat(MAX_SAMPLE_CHARS + 5);
        let cut = sample_value(Some(&long));
        assert_eq!(
            cut.as_str().expect("a string").chars().count(),
            MAX_SAMPLE_CHARS + 1
        );
        assert_eq!(
            column_sample("c", [Some("a"), None]),
            json!({"header": ["c"], "samples": [["a"], [null]]})
        );
        assert_eq!(
            data_sample(&["a".into(), "b".into()], vec![vec![json!(1), Value::Null]]),
            json!({"header": ["a", "b"], "samples": [[1, null]]})
        );
        DateTime::parse_from_rfc3339(&profiling_date()).expect("RFC 3339");
    }
}
