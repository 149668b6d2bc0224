//! Value validation of objects by their schema, with ratcheting (being written).
