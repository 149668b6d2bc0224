//! Evaluation of checked expressions with run-time cost accounting.
