//! Fresh PostgreSQL databases for test runs (being written).
