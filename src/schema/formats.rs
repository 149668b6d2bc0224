//! String formats (`format:`) as kube-openapi validates them (being written).
