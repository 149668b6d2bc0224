//! Type checking of parsed expressions against declared variables and functions.
