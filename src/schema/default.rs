//! Defaulting of objects by their structural schema (being written).
