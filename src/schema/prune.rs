//! Pruning of fields the structural schema does not know (being written).
