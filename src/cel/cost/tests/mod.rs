//! Tests of the cost model against kube's and cel-go's own test tables.

mod celgo_cases;
mod estimate;
mod kube_cases;
mod kube_schemas;
mod library_cases;
mod runtime;
