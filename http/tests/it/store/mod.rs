//! The store conformance suite: the same assertions against SQLite and PostgreSQL.
