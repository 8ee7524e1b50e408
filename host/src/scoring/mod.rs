//! Scoring (spec §4): pure functions over task records.
