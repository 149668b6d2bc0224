//! Parsing with the `cel` crate into our tree, macros expanded as cel-go expands them.
