//! Static cost estimation and the run-time cost of calls, as cel-go and kube compute them.
