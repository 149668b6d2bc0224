//! The structural-schema check run when CRDs load (being written).
